package main

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sabot-table/sabot/display"
	"github.com/sabot-table/sabot/tableau"
)

// panel is the dealer-facing hardware: the totals display, the alarm lamp
// and the buzzer. Show gets every new frame (the panel animates blinking
// digits itself); Lamps gets the alarm state after every input.
type panel interface {
	Show(f display.Frame) error
	Lamps(alarm bool, beep bool) error
	Close() error
}

// renderer is a display that shows frames (every chip driver, the terminal
// display, the fake display). Digits, if implemented, gives its width.
type renderer interface {
	Render(f display.Frame) error
}

type digitser interface{ Digits() int }

// lampSink drives the lamp and buzzer outputs (GPIO or the terminal).
type lampSink interface {
	SetLamp(on bool) error
	Beep(d time.Duration) error
	Close() error
}

// framePanel shows frames on a renderer, redrawing every half blink period
// while a frame blinks, and drives lamps through an optional lampSink.
type framePanel struct {
	r      renderer
	lamps  lampSink
	buzz   time.Duration
	mu     sync.Mutex
	frame  display.Frame
	since  time.Time
	last   display.Frame // what the renderer shows now (blink phase applied)
	stop   chan struct{}
	done   chan struct{}
	closed bool
	closer func() error
}

func newFramePanel(r renderer, lamps lampSink, buzz time.Duration, closer func() error) *framePanel {
	p := &framePanel{r: r, lamps: lamps, buzz: buzz, stop: make(chan struct{}), done: make(chan struct{}), closer: closer}
	go p.blink()
	return p
}

func (p *framePanel) Show(f display.Frame) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.frame, p.since = f, time.Now()
	return p.renderLocked(f.At(0))
}

func (p *framePanel) renderLocked(f display.Frame) error {
	if f.Equal(p.last) {
		return nil
	}
	p.last = f
	return p.r.Render(f)
}

// blink redraws blinking frames at each half period.
func (p *framePanel) blink() {
	defer close(p.done)
	t := time.NewTicker(display.BlinkPeriod / 2)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.frame.Blinking() && !p.closed {
				p.renderLocked(p.frame.At(time.Since(p.since)))
			}
			p.mu.Unlock()
		}
	}
}

func (p *framePanel) Lamps(alarm, beep bool) error {
	if p.lamps == nil {
		return nil
	}
	err := p.lamps.SetLamp(alarm)
	if beep {
		err = errors.Join(err, p.lamps.Beep(p.buzz))
	}
	return err
}

func (p *framePanel) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	close(p.stop)
	<-p.done
	var errs []error
	if p.lamps != nil {
		errs = append(errs, p.lamps.SetLamp(false), p.lamps.Close())
	}
	if p.closer != nil {
		errs = append(errs, p.closer())
	}
	return errors.Join(errs...)
}

// fakeDisplay records frames in memory: display kind "fake", for tests and
// benches (the last frame shows in /scoreboard.json).
type fakeDisplay struct {
	mu     sync.Mutex
	frames []display.Frame
	lamp   bool
	beeps  int
}

func (f *fakeDisplay) Render(fr display.Frame) error {
	f.mu.Lock()
	f.frames = append(f.frames, fr)
	if len(f.frames) > 1000 {
		f.frames = append(f.frames[:0], f.frames[len(f.frames)-100:]...)
	}
	f.mu.Unlock()
	return nil
}

func (f *fakeDisplay) Digits() int { return 8 }

func (f *fakeDisplay) Last() display.Frame {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.frames) == 0 {
		return display.Frame{}
	}
	return f.frames[len(f.frames)-1]
}

func (f *fakeDisplay) SetLamp(on bool) error {
	f.mu.Lock()
	f.lamp = on
	f.mu.Unlock()
	return nil
}

func (f *fakeDisplay) lampOn() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lamp
}

func (f *fakeDisplay) Beep(time.Duration) error {
	f.mu.Lock()
	f.beeps++
	f.mu.Unlock()
	return nil
}

func (f *fakeDisplay) Close() error { return nil }

// displayState converts the table's view into what the totals display shows.
func displayState(v tableau.TableView) display.TableState {
	s := display.TableState{
		Player:   v.Player.Slice(),
		Banker:   v.Banker.Slice(),
		LastCoup: v.IsLastCoup,
		Offline:  v.Offline,
	}
	switch v.Waiting {
	case "player-third":
		s.Waiting = display.HandPlayer
	case "banker-third":
		s.Waiting = display.HandBanker
	}
	if v.Complete && !v.Voided {
		switch v.Winner {
		case tableau.WinnerPlayer:
			s.Result = display.ResultPlayer
		case tableau.WinnerBanker:
			s.Result = display.ResultBanker
		case tableau.WinnerTie:
			s.Result = display.ResultTie
		}
		s.Natural = v.Natural
	}
	if v.Phase == "burn" {
		s.Burning = true
		if v.BurnWant > 0 {
			s.BurnRemaining = max(v.BurnWant-v.BurnDrawn, 0)
		}
		s.Player, s.Banker = nil, nil
	}
	if v.Voided {
		s.Player, s.Banker = nil, nil
	}
	if n := len(v.Alerts); n > 0 {
		s.Alert = string(v.Alerts[n-1].Code)
	}
	return s
}

// showView composes the frame for view and shows it; for a card it records
// the card → display latency.
func (d *daemon) showView(view tableau.TableView, r inputReq) {
	if d.panel == nil {
		return
	}
	f := display.Compose(displayState(view), d.layout, d.cfg.Display.Brightness)
	if err := d.panel.Show(f); err != nil {
		d.log.Warn("display", "err", err)
	}
	if r.in.Kind == tableau.InputCard && !r.recv.IsZero() {
		d.metrics.cardToDisplay.Observe(time.Since(r.recv).Seconds())
	}
}

// setLamps lights the alarm lamp while alerts await acknowledgement and
// sounds the buzzer for each new one.
func (d *daemon) setLamps(view tableau.TableView, outs []tableau.Output) {
	if d.panel == nil {
		return
	}
	beep := false
	for i := range outs {
		if outs[i].Kind == tableau.OutputAlert && outs[i].Alert.AwaitsAck {
			beep = true
		}
	}
	if err := d.panel.Lamps(len(view.Alerts) > 0, beep); err != nil {
		d.log.Warn("lamps", "err", err)
	}
}

// openPanel opens the configured display and lamps.
func (d *daemon) openPanel() (panel, error) {
	buzz := time.Duration(d.cfg.Alerts.BuzzerSeconds) * time.Second
	if buzz == 0 {
		buzz = time.Hour // until acknowledged: the lamp off stops it
	}
	var r renderer
	var lamps lampSink
	var closer func() error
	switch d.cfg.Display.Kind {
	case "none":
		var err error
		if lamps, err = d.openLamps(); err != nil {
			return nil, err
		}
		if lamps == nil {
			return nil, nil
		}
		r = discardRenderer{}
	case "fake":
		fd := &fakeDisplay{}
		d.fake = fd
		r, lamps = fd, fd
	case "terminal":
		var err error
		if r, lamps, closer, err = d.openTerminal(); err != nil {
			return nil, err
		}
	default:
		var err error
		if r, closer, err = d.openChip(); err != nil {
			return nil, err
		}
		if lamps, err = d.openLamps(); err != nil {
			if closer != nil {
				closer()
			}
			return nil, err
		}
	}
	width := 8
	if ds, ok := r.(digitser); ok && ds.Digits() > 0 {
		width = ds.Digits()
	}
	l, err := display.LayoutFor(width)
	if err != nil {
		return nil, fmt.Errorf("display.kind %s: %w", d.cfg.Display.Kind, err)
	}
	d.layout = l
	return newFramePanel(r, lamps, buzz, closer), nil
}

type discardRenderer struct{}

func (discardRenderer) Render(display.Frame) error { return nil }
