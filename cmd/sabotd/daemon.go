package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/sabot-table/sabot/drivers/journal"
	"github.com/sabot-table/sabot/drivers/sdnotify"
)

// daemon is a running sabotd: it owns every device and the main loop.
type daemon struct {
	cfg    Config
	demo   DemoOptions
	stdout io.Writer
	log    *slog.Logger

	metrics *metrics
	journal *journal.Journal
	http    *httpServer
	tempDir string // demo state directory, removed on close

	cancel context.CancelFunc
	wg     sync.WaitGroup

	done     chan struct{}
	doneOnce sync.Once
	mu       sync.Mutex
	fatal    error
	closed   bool
}

func newDaemon(cfg Config, demo DemoOptions, stdout, stderr io.Writer) (*daemon, error) {
	d := &daemon{
		cfg:     cfg,
		demo:    demo,
		stdout:  stdout,
		log:     newLogger(cfg.Log, stderr),
		metrics: newMetrics(),
		done:    make(chan struct{}),
	}
	return d, nil
}

// stop marks the daemon as finished by itself with err (nil for success).
func (d *daemon) stop(err error) {
	d.mu.Lock()
	if d.fatal == nil {
		d.fatal = err
	}
	d.mu.Unlock()
	d.doneOnce.Do(func() { close(d.done) })
}

func (d *daemon) err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fatal
}

func (d *daemon) start(ctx context.Context) error {
	ctx, d.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if d.cfg.State.Dir == "" {
		dir, err := os.MkdirTemp("", "sabotd-demo-")
		if err != nil {
			return fmt.Errorf("state: %w", err)
		}
		d.tempDir = dir
		d.cfg.State.Dir = dir
	}
	j, err := journal.Open(d.cfg.State.Dir, &journal.Options{Logger: d.log})
	if err != nil {
		return fmt.Errorf("state.dir: %w", err)
	}
	d.journal = j
	d.metrics.journal.Set(float64(j.Last()))

	if d.cfg.HTTP.Addr != "off" {
		h, err := startHTTP(d.cfg.HTTP.Addr, d.metrics, d.health, d.scoreboard, d.log)
		if err != nil {
			return err
		}
		d.http = h
		d.log.Info("http listening", "addr", h.addr, "metrics", "http://"+h.addr+"/metrics", "scoreboard", "http://"+h.addr+"/scoreboard")
	}

	if err := sdnotify.Ready(fmt.Sprintf("table %s", d.cfg.Table)); err != nil {
		d.log.Warn("systemd notify", "err", err)
	}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		sdnotify.RunWatchdog(ctx, func() bool { return true })
	}()
	d.log.Info("sabotd started", "version", Version(), "table", d.cfg.Table, "state", d.cfg.State.Dir, "journal_records", j.Last())
	return nil
}

func (d *daemon) health() health {
	h := health{OK: true, Table: d.cfg.Table, Version: Version()}
	if d.journal != nil {
		h.Journal = d.journal.Last()
	}
	return h
}

func (d *daemon) scoreboard() any {
	return map[string]any{"Table": d.cfg.Table}
}

func (d *daemon) close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	d.mu.Unlock()
	sdnotify.Stopping()
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	var errs []error
	if d.cancel != nil {
		d.cancel()
	}
	waited := make(chan struct{})
	go func() { d.wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
		errs = append(errs, errors.New("stop: goroutines did not finish in time"))
	}
	if err := d.http.close(ctx); err != nil {
		errs = append(errs, err)
	}
	if d.journal != nil {
		if err := d.journal.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if d.tempDir != "" {
		os.RemoveAll(d.tempDir)
	}
	d.log.Info("sabotd stopped")
	d.doneOnce.Do(func() { close(d.done) })
	_ = time.Now
	return errors.Join(errs...)
}
