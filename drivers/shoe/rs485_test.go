package shoe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"github.com/sabot-table/sabot/firmware-proto/sim"
)

// levelPin is periph's gpiotest fake pin, recording every level driven
// (and, optionally, a shared log of what happened around it).
type levelPin struct {
	*gpiotest.Pin
	mu     sync.Mutex
	levels []gpio.Level
	log    *[]string
	fail   error // Out fails with it (the level is not changed)
}

func newLevelPin(name string) *levelPin {
	return &levelPin{Pin: &gpiotest.Pin{N: name, Num: -1}}
}

func (p *levelPin) Out(l gpio.Level) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	p.levels = append(p.levels, l)
	if p.log != nil {
		*p.log = append(*p.log, "DE "+l.String())
	}
	return p.Pin.Out(l)
}

func (p *levelPin) history() []gpio.Level {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]gpio.Level(nil), p.levels...)
}

func (p *levelPin) level() gpio.Level {
	p.Pin.Lock()
	defer p.Pin.Unlock()
	return p.Pin.L
}

// The DE sequence around one write: assert, before-delay, write (DE
// asserted while it runs), drain (still asserted), after-delay, release;
// active-low swaps the levels.
func TestDEControlSequence(t *testing.T) {
	for _, tc := range []struct {
		activeLow bool
		on, off   string
	}{{false, "High", "Low"}, {true, "Low", "High"}} {
		var log []string
		pin := newLevelPin("GPIO18")
		pin.log = &log
		d := newDEControl(RS485Config{Mode: RS485GPIO, DE: pin, DEName: "GPIO18", ActiveLow: tc.activeLow,
			DelayBefore: 500 * time.Microsecond, DelayAfter: 200 * time.Microsecond})
		d.sleep = func(t time.Duration) { log = append(log, "sleep "+t.String()) }
		write := func(b []byte) (int, error) {
			log = append(log, fmt.Sprintf("write %q with DE %s", b, pin.level()))
			return len(b), nil
		}
		drain := func() error {
			log = append(log, "drain with DE "+pin.level().String())
			return nil
		}
		n, err := d.write([]byte("ACK"), write, drain)
		if n != 3 || err != nil {
			t.Fatalf("write: %d, %v", n, err)
		}
		want := []string{"DE " + tc.on, "sleep 500µs", `write "ACK" with DE ` + tc.on, "drain with DE " + tc.on, "sleep 200µs", "DE " + tc.off}
		if strings.Join(log, "; ") != strings.Join(want, "; ") {
			t.Errorf("active low %v:\n got %q\nwant %q", tc.activeLow, log, want)
		}
	}
}

// DE is released when the write fails, when the drain fails, and when
// asserting it fails (nothing is written then).
func TestDEControlReleasedOnFailure(t *testing.T) {
	boom := errors.New("EIO")
	for _, tc := range []struct {
		name                  string
		writeErr, drainErr    error
		want                  []string
		wantN                 int
		wantErrText, notInLog string
	}{
		{"write fails", boom, nil, []string{"DE High", "write", "DE Low"}, 1, "EIO", ""},
		{"drain fails", nil, boom, []string{"DE High", "write", "drain", "DE Low"}, 3, "EIO", ""},
	} {
		var log []string
		pin := newLevelPin("GPIO18")
		pin.log = &log
		d := newDEControl(RS485Config{Mode: RS485GPIO, DE: pin, DelayAfter: time.Millisecond})
		d.sleep = func(time.Duration) { log = append(log, "sleep") }
		n, err := d.write([]byte("abc"), func([]byte) (int, error) {
			log = append(log, "write")
			if tc.writeErr != nil {
				return 1, tc.writeErr
			}
			return 3, nil
		}, func() error { log = append(log, "drain"); return tc.drainErr })
		if !errors.Is(err, boom) || n != tc.wantN {
			t.Errorf("%s: %d, %v", tc.name, n, err)
		}
		if strings.Join(log, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: %q, want %q (no after-delay, DE released)", tc.name, log, tc.want)
		}
		if pin.level() != gpio.Low {
			t.Errorf("%s: DE left %v", tc.name, pin.level())
		}
	}
	pin := newLevelPin("GPIO18")
	pin.fail = errors.New("line busy")
	d := newDEControl(RS485Config{Mode: RS485GPIO, DE: pin, DEName: "GPIO18"})
	wrote := false
	_, err := d.write([]byte("x"), func(b []byte) (int, error) { wrote = true; return len(b), nil }, func() error { return nil })
	if err == nil || !strings.Contains(err.Error(), "rs485_de GPIO18") || wrote {
		t.Errorf("assert failing: err %v, wrote %v", err, wrote)
	}
}

func TestRS485Check(t *testing.T) {
	pin := newLevelPin("GPIO18")
	for _, tc := range []struct {
		c    RS485Config
		want string // "" for valid
	}{
		{RS485Config{}, ""},
		{RS485Config{Mode: RS485Off}, ""},
		{RS485Config{Mode: RS485Kernel, DelayBefore: 2 * time.Millisecond}, ""},
		{RS485Config{Mode: RS485GPIO, DEName: "GPIO18", DelayBefore: 1500 * time.Microsecond, DelayAfter: MaxRS485Delay}, ""},
		{RS485Config{Mode: "auto"}, `rs485: "auto": want "off"`},
		{RS485Config{Mode: RS485GPIO}, "rs485_de: required"},
		{RS485Config{Mode: RS485GPIO, DE: pin, RxDuringTx: true}, "rs485_rx_during_tx: only with"},
		{RS485Config{Mode: RS485Kernel, DEName: "GPIO18"}, `rs485_de: "GPIO18" is only used with rs485 = "gpio"`},
		{RS485Config{Mode: RS485GPIO, DE: pin, DelayBefore: MaxRS485Delay + time.Microsecond}, "rs485_delay_before_us: 100001: must be 0–100000"},
		{RS485Config{Mode: RS485GPIO, DE: pin, DelayAfter: -time.Microsecond}, "rs485_delay_after_us: -1: must be 0–100000"},
		{RS485Config{Mode: RS485Kernel, DelayAfter: 1500 * time.Microsecond}, "rs485_delay_after_us: 1500: with rs485 = \"kernel\" the delay is whole milliseconds (struct serial_rs485 counts ms): use 1000 or 2000"},
	} {
		var msgs []string
		for _, e := range tc.c.Check() {
			msgs = append(msgs, e.Error())
		}
		got := strings.Join(msgs, "\n")
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
	// New needs the pin itself in gpio mode, not only its name.
	if _, err := New(Options{Path: "/dev/x", RS485: RS485Config{Mode: RS485GPIO, DEName: "GPIO18"}}); err == nil || !strings.Contains(err.Error(), "no DE pin") {
		t.Errorf("New without the DE pin: %v", err)
	}
	if _, err := New(Options{Path: "/dev/x", RS485: RS485Config{Mode: "on"}}); err == nil || !strings.Contains(err.Error(), "shoe: rs485: \"on\"") {
		t.Errorf("New with a bad mode: %v", err)
	}
}

func littleEndian() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }

// ttyCheckIoctl is the fake driver, checking that each call is made on a
// descriptor of the configured pty.
type ttyCheckIoctl struct {
	*FakeRS485
	t    *testing.T
	rdev uint64
}

func (c ttyCheckIoctl) IoctlRS485(fd int, req uint, arg *[SerialRS485Size]byte) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Rdev != c.rdev {
		c.t.Errorf("ioctl %#x on fd %d: not the shoe's tty (rdev %#x, want %#x; %v)", req, fd, st.Rdev, c.rdev, err)
	}
	return c.FakeRS485.IoctlRS485(fd, req, arg)
}

func ptyRdev(t *testing.T, dev string) uint64 {
	var st unix.Stat_t
	if err := unix.Stat(dev, &st); err != nil {
		t.Fatal(err)
	}
	return st.Rdev
}

// Kernel mode: the exact struct serial_rs485 given to TIOCSRS485 on the
// port's tty, then read back with TIOCGRS485.
func TestRS485KernelStruct(t *testing.T) {
	if !littleEndian() {
		t.Skip("the expected bytes below are little-endian (every Sabot target is)")
	}
	for _, tc := range []struct {
		name string
		c    RS485Config
		want [SerialRS485Size]byte
	}{
		{"active high", RS485Config{Mode: RS485Kernel, DelayBefore: 2 * time.Millisecond, DelayAfter: 3 * time.Millisecond},
			[32]byte{0x03, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}}, // ENABLED|RTS_ON_SEND
		{"active low, rx during tx", RS485Config{Mode: RS485Kernel, ActiveLow: true, RxDuringTx: true, DelayAfter: 100 * time.Millisecond},
			[32]byte{0x15, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0}}, // ENABLED|RTS_AFTER_SEND|RX_DURING_TX
		{"no delays", RS485Config{Mode: RS485Kernel}, [32]byte{0x03}},
	} {
		p := newPTY(t)
		fake := &FakeRS485{}
		tc.c.Ioctl = ttyCheckIoctl{fake, t, ptyRdev(t, p.dev)}
		port, err := OpenSerial(PortConfig{Path: p.dev, Baud: 115200, ReadTimeout: 50 * time.Millisecond, RS485: tc.c})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		port.Close()
		if len(fake.Calls) != 2 || fake.Calls[0].Req != unix.TIOCSRS485 || fake.Calls[1].Req != unix.TIOCGRS485 {
			t.Fatalf("%s: calls %+v, want TIOCSRS485 then TIOCGRS485", tc.name, fake.Calls)
		}
		if fake.Calls[0].Arg != tc.want {
			t.Errorf("%s: TIOCSRS485 got bytes\n% x\nwant\n% x", tc.name, fake.Calls[0].Arg, tc.want)
		}
		if fake.State != tc.want {
			t.Errorf("%s: driver state % x", tc.name, fake.State)
		}
	}
}

// Kernel mode on a driver that does not keep what it was asked (here: no
// RTS_AFTER_SEND, which an active-low DE needs): an error wrapping
// ErrRS485 that names the device and the keys, and the port is not left
// open or locked.
func TestRS485KernelNotKept(t *testing.T) {
	p := newPTY(t)
	fake := &FakeRS485{Unsupported: SerRS485RTSAfterSend}
	cfg := PortConfig{Path: p.dev, Baud: 115200, ReadTimeout: 50 * time.Millisecond,
		RS485: RS485Config{Mode: RS485Kernel, ActiveLow: true, Ioctl: fake}}
	_, err := OpenSerial(cfg)
	if !errors.Is(err, ErrRS485) {
		t.Fatalf("err %v, want ErrRS485", err)
	}
	for _, w := range []string{p.dev, `[shoe] rs485 = "kernel"`, "asked for enabled|rts-after-send", "kept enabled,", "rs485_de_active_low"} {
		if !strings.Contains(err.Error()+",", w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	cfg.RS485 = RS485Config{}
	port, err := OpenSerial(cfg)
	if err != nil {
		t.Fatalf("the refused open left the device locked: %v", err)
	}
	port.Close()
}

// The real kernel: a pseudo-terminal has no RS-485 mode and refuses
// TIOCSRS485 with ENOTTY. OpenSerial says so naming the device and the
// key, and Run returns it after one open instead of retrying.
func TestRS485KernelRefusedByPTY(t *testing.T) {
	p := newPTY(t)
	link := symlinkPath(t)
	p.link(t, link)
	cfg := PortConfig{Path: link, Baud: 115200, ReadTimeout: 50 * time.Millisecond, RS485: RS485Config{Mode: RS485Kernel}}
	_, err := OpenSerial(cfg)
	if !errors.Is(err, ErrRS485) || !errors.Is(err, unix.ENOTTY) {
		t.Fatalf("err %v, want ErrRS485 and ENOTTY", err)
	}
	for _, w := range []string{link, p.dev, `[shoe] rs485 = "kernel"`, "no RS-485 mode", "TIOCSRS485"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	co := &countingOpen{open: OpenSerial}
	opts := sabotOptions(link)
	opts.RS485 = RS485Config{Mode: RS485Kernel}
	opts.Open = co.Open
	_, _, done := startShoe(t, opts)
	select {
	case err := <-done:
		if !errors.Is(err, ErrRS485) {
			t.Fatalf("Run: %v, want ErrRS485", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run kept retrying an adapter without RS-485 mode")
	}
	if opens, fails, _ := co.counts(); opens != 1 || fails != 1 {
		t.Errorf("%d opens (%d failed), want 1", opens, fails)
	}
}

// writeCounter counts writes through a port and checks that DE is
// released before and after each.
type writeCounter struct {
	open OpenFunc
	pin  *levelPin
	t    *testing.T

	mu       sync.Mutex
	writes   int
	inFlight int // writes begun and not yet returned
}

// settled waits until no write is in progress through the counted ports
// (up to 5 s) and returns the writes made: a write the shoe's writer began
// just before Close returns only once the port is closed, and its DE
// assertion is already in the pin's history.
func (w *writeCounter) settled(t *testing.T) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		w.mu.Lock()
		n, busy := w.writes, w.inFlight
		w.mu.Unlock()
		if busy == 0 {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes still in progress 5 s after Close", busy)
		}
		time.Sleep(time.Millisecond)
	}
}

func (w *writeCounter) Open(cfg PortConfig) (Port, error) {
	p, err := w.open(cfg)
	if err != nil {
		return nil, err
	}
	return &countedPort{Port: p, w: w}, nil
}

type countedPort struct {
	Port
	w *writeCounter
}

func (p *countedPort) Write(b []byte) (int, error) {
	p.w.mu.Lock()
	p.w.inFlight++
	p.w.mu.Unlock()
	if l := p.w.pin.level(); l != gpio.Low {
		p.w.t.Errorf("DE %v before a write: the transceiver is not listening", l)
	}
	n, err := p.Port.Write(b)
	if l := p.w.pin.level(); l != gpio.Low {
		p.w.t.Errorf("DE %v after a write", l)
	}
	p.w.mu.Lock()
	p.w.writes++
	p.w.inFlight--
	p.w.mu.Unlock()
	return n, err
}

// GPIO mode over a real pty with the virtual shoe: the sabot protocol
// works (every card once, in order: the ACKs and STATUS_REQUEST went out),
// and DE went high and back low once per write, ending low.
func TestRS485GPIOVirtualShoe(t *testing.T) {
	r := startSim(t, sim.Options{Seed: 3, Decks: 1, Rate: 300}) // paced: the host writes an ACK per card or few, idle
	pin := newLevelPin("GPIO18")
	wc := &writeCounter{open: OpenSerial, pin: pin, t: t}
	opts := sabotOptions(r.link.name)
	opts.Open = wc.Open
	opts.RS485 = RS485Config{Mode: RS485GPIO, DE: pin, DEName: "GPIO18", DelayBefore: 50 * time.Microsecond, DelayAfter: 50 * time.Microsecond}
	s, rec, _ := startShoe(t, opts)
	r.wait(t, 60*time.Second)
	checkExactlyOnce(t, rec.events(), r.shoe.Tokens())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	writes := wc.settled(t)
	h := pin.history()
	highs := 0
	for i, l := range h {
		if l == gpio.High {
			highs++
			if i == 0 || h[i-1] != gpio.Low {
				t.Fatalf("level %d: High not after Low: %v", i, h[max(0, i-3):i+1])
			}
		}
	}
	if len(h) == 0 || h[0] != gpio.Low || h[len(h)-1] != gpio.Low {
		t.Fatalf("DE history does not start (open) and end (close) released: %d levels", len(h))
	}
	// How many writes is the host's to choose: its ACKs are cumulative, and
	// under load it took 63 events in 4 writes (the shoe retransmitting
	// meanwhile). Every write asserts DE once.
	if acks := r.shoe.Stats().Acked; writes < 2 || highs != writes || acks < 50 {
		t.Errorf("%d writes, DE asserted %d times, %d events acknowledged", writes, highs, acks)
	}
	t.Logf("%d writes, %d DE levels, shoe %+v, host %+v", writes, len(h), r.shoe.Stats(), s.Stats())
}

// GPIO mode over a real pty whose other end went away: the write fails
// and DE is released all the same.
func TestRS485GPIOReleasedWhenWriteFails(t *testing.T) {
	p := newPTY(t)
	pin := newLevelPin("GPIO18")
	port, err := OpenSerial(PortConfig{Path: p.dev, Baud: 115200, ReadTimeout: 50 * time.Millisecond, WriteTimeout: 200 * time.Millisecond,
		RS485: RS485Config{Mode: RS485GPIO, DE: pin, ActiveLow: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer port.Close()
	if _, err := port.Write([]byte("ok")); err != nil {
		t.Fatal(err)
	}
	p.unplug()
	if _, err := port.Write([]byte("lost")); err == nil {
		t.Fatal("write to an unplugged pty succeeded")
	}
	h := pin.history()
	want := []gpio.Level{gpio.High, gpio.Low, gpio.High, gpio.Low, gpio.High} // open; write; failed write (active low)
	if fmt.Sprint(h) != fmt.Sprint(want) {
		t.Errorf("DE levels %v, want %v", h, want)
	}
	if pin.level() != gpio.High {
		t.Errorf("DE (active low) left %v after the failed write", pin.level())
	}
}
