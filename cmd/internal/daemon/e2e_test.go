package daemon

// End-to-end tests: the real sabotd binary, configured by file, reading a
// pseudo-terminal, publishing to a real Mosquitto broker; the coups, alerts
// and voids received are compared with what `sabot check` (the real sabot
// binary) prints for the same transcript.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-table/sabot/tableau/card"

	"github.com/sabot-table/sabot/drivers/testenv"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds sabotd and sabot once per test run and returns their
// directory.
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "sabot-e2e-bin-")
		if buildErr != nil {
			return
		}
		gobin, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		for _, pkg := range []string{"../../sabotd", "../../sabot"} {
			name := filepath.Base(pkg)
			// -trimpath as .ci/test's go vet and .ci/package build: the
			// packages compiled once serve all three.
			out, err := exec.Command(gobin, "build", "-trimpath", "-o", filepath.Join(binDir, name), pkg).CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

func TestMain(m *testing.M) {
	// The test machine's clock (often unsynchronised in a container) must
	// not hold every start for [state] clock_wait; clockwait_test.go
	// injects the clock's state where the wait is tested.
	systemClockSynced = func(string) (bool, error) { return true, nil }
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// dieWithTest makes a child process get SIGKILL when the test binary dies
// (a timeout, an interrupt), so no broker or daemon outlives its test.
func dieWithTest() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// sabotdProc is a running sabotd process.
type sabotdProc struct {
	t    *testing.T
	cmd  *exec.Cmd
	logs *syncBuffer
	done chan struct{}
	err  error
}

func startSabotd(t *testing.T, conf string) *sabotdProc {
	t.Helper()
	return startSabotdIn(t, conf, nil)
}

// startSabotdIn is startSabotd with the command line prefixed by wrap
// (e.g. ip netns exec NS: a prefix that execs sabotd).
func startSabotdIn(t *testing.T, conf string, wrap []string) *sabotdProc {
	t.Helper()
	bin := filepath.Join(binaries(t), "sabotd")
	path := filepath.Join(t.TempDir(), "sabotd.toml")
	// Nor the clock of a sabotd process (see TestMain).
	conf = strings.Replace(conf, "\n[state]\n", "\n[state]\nclock_wait = \"0s\"\n", 1)
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &sabotdProc{t: t, logs: &syncBuffer{}, done: make(chan struct{})}
	argv := append(append([]string(nil), wrap...), bin, "--config", path)
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.SysProcAttr = dieWithTest()
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("sabotd log:\n%s", p.logs.String())
		}
	})
	// Ready once the journal is replayed and the shoe port opened.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.logs.String(), "sabotd started") {
		select {
		case <-p.done:
			t.Fatalf("sabotd exited at startup: %v\n%s", p.err, p.logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("sabotd did not start:\n%s", p.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return p
}

// waitOnline waits until sabotd has the shoe's port open and online, so
// that bytes written to a pty are not written before the port is opened.
func (p *sabotdProc) waitOnline(t *testing.T) {
	t.Helper()
	waitFor(t, "the shoe online", 10*time.Second, func() bool { return strings.Contains(p.logs.String(), `"msg":"shoe online"`) })
}

func (p *sabotdProc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// term sends SIGTERM and returns how long the process took to exit and its
// exit error.
func (p *sabotdProc) term() (time.Duration, error) {
	start := time.Now()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return time.Since(start), p.err
	case <-time.After(15 * time.Second):
		p.kill()
		return time.Since(start), fmt.Errorf("sabotd did not stop within 15 s")
	}
}

// expectedCheck runs `sabot check` on transcript with flags and returns its
// JSON lines.
func expectedCheck(t *testing.T, transcript string, flags ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "sabot"), append(append([]string{"check"}, flags...), "-")...)
	cmd.Stdin = strings.NewReader(transcript)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil // alerts
	}
	if err != nil {
		t.Fatalf("sabot check: %v", err)
	}
	return string(out)
}

func countLines(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// e2eConfig is a sabotd config for a pty shoe and an external broker;
// extra goes at the top level, markers is "on", "off" or "auto".
func e2eConfig(table, device, protocol, markers, broker, state string, extra string) string {
	return fmt.Sprintf(`table = %q
%s
[shoe]
device = %q
protocol = %q
markers = %q
[mqtt]
brokers = [%q]
[display]
kind = "none"
[state]
dir = %q
[http]
addr = "127.0.0.1:0"
[log]
format = "json"
`, table, extra, device, protocol, markers, broker, state)
}

// sampleTranscripts lists tableau's sample shoes with their decks.
func sampleTranscripts(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("../../../tableau/testdata/*.shoe")
	if len(files) < 8 {
		t.Fatalf("found %d sample transcripts", len(files))
	}
	// And the contract's worked examples (the Macao ones are sabot
	// check's only: no daemon deals Macao).
	contract, _ := filepath.Glob("../../../tableau/testdata/contract/*.shoe")
	if len(contract) < 9 {
		t.Fatalf("found %d contract transcripts", len(contract))
	}
	return append(files, contract...)
}

// sampleGame returns the game a sample transcript's name gives
// ("chemin-de-fer.free.markers-off.shoe", "banque.shoe"), or "" for the
// punto banco family (dealt by the punto banco tableau).
func sampleGame(name string) string {
	for _, part := range strings.Split(filepath.Base(name), ".") {
		// "banque", "check-chemin-de-fer", "check-banque-naturals".
		part = strings.TrimPrefix(part, "check-")
		for {
			if g, err := baccarat.ParseGame(part); err == nil && g.HasOptions() {
				return g.Name()
			}
			i := strings.LastIndexByte(part, '-')
			if i < 0 {
				break
			}
			part = part[:i]
		}
	}
	return ""
}

// sampleParams returns the game parameters a sample's name gives
// ("free" is chemin de fer's banker-table), as `sabot check` flags and
// as sabotd's [rules] keys.
func sampleParams(name, game string) (flags []string, rules string) {
	info, _ := baccarat.LookupGame(game)
	for _, part := range strings.Split(filepath.Base(name), ".") {
		for _, p := range info.Params {
			if slices.Contains(p.Values, part) {
				flags = append(flags, "--"+p.Name, part)
				rules += fmt.Sprintf("%s = %q\n", strings.ReplaceAll(p.Name, "-", "_"), part)
			}
		}
	}
	return flags, rules
}

// decksOf returns the decks a sample's name gives ("decks6"), or its
// game's default (8; chemin de fer 6, banque 3).
func decksOf(name string) int {
	for _, part := range strings.Split(filepath.Base(name), ".") {
		var n int
		if _, err := fmt.Sscanf(part, "decks%d", &n); err == nil {
			return n
		}
	}
	if g := sampleGame(name); g != "" {
		info, _ := baccarat.LookupGame(g)
		return info.DefaultDecks
	}
	return 8
}

// TestE2ESamples deals every sample transcript (a clean 8-deck shoe and one
// for each alert kind) from `sabot shoe-sim --transcript` on a pty to a real
// sabotd (sabot shoe protocol) publishing to Mosquitto: the coups, alerts
// and voids received equal `sabot check`'s output. Then SIGTERM stops it
// with exit 0 within 10 s, leaving the retained status "offline".
func TestE2ESamples(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	broker := testenv.StartMosquitto(t)
	for _, file := range sampleTranscripts(t) {
		// A chemin de fer or banque transcript's stand tokens are the
		// shoe's stand button (BUTTON 4), sent by the virtual shoe.
		game := sampleGame(file)
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			toks, err := tableau.ParseTranscript(bytes.NewReader(src), file)
			if err != nil {
				t.Fatal(err)
			}
			markers := tableau.HasMarkers(toks)
			decks := decksOf(file)
			flags := []string{"--decks", fmt.Sprint(decks), "--markers", map[bool]string{true: "on", false: "off"}[markers]}
			extra := fmt.Sprintf("decks = %d", decks)
			checkFlags := flags
			if game != "" {
				pf, rules := sampleParams(file, game)
				checkFlags = append(append(append([]string{}, flags...), "--game", game), pf...)
				extra = fmt.Sprintf("game = %q\n%s\n[rules]\n%s", game, extra, rules)
			}
			want := expectedCheck(t, string(src), checkFlags...)
			var words []string
			for _, tok := range toks {
				words = append(words, tok.String())
			}
			// The daemon never sees the end of input: a transcript that ends
			// mid-coup gets a new shoe, which raises incomplete-coup as the
			// end of input does for `sabot check`.
			if strings.Contains(lastLine(want), `"incomplete-coup"`) {
				words = append(words, "shoe")
			}
			table := "E2E-" + strings.ReplaceAll(strings.TrimSuffix(filepath.Base(file), ".shoe"), ".", "-")
			r := newReceived()
			subscribe(t, broker.URL, "sabot/"+table, r)
			// The virtual shoe deals the transcript over the sabot protocol.
			shoe := startShoeSim(t, strings.Join(words, " "), "--rate", "0", "--decks", fmt.Sprint(decks))
			state := t.TempDir()
			p := startSabotd(t, e2eConfig(table, shoe.link, "sabot", flags[3], broker.URL, state, extra))
			shoe.wait(t, 30*time.Second)
			n := countLines(want)
			waitFor(t, fmt.Sprintf("%d events", n), 20*time.Second, func() bool { return len(withoutLink(r.events())) >= n })
			time.Sleep(50 * time.Millisecond) // nothing more may come
			matchEvents(t, withoutLink(r.events()), want)
			if len(r.dupes) > 0 {
				t.Fatalf("ids with two payloads: %v", r.dupes)
			}
			took, err := p.term()
			if err != nil || took > 10*time.Second {
				t.Fatalf("SIGTERM: exit %v after %v", err, took)
			}
			waitFor(t, "the offline status", 5*time.Second, func() bool {
				st := r.kind("status")
				return len(st) > 0 && st[len(st)-1]["status"] == "offline"
			})
			// The journal, exported, is a transcript `sabot check` reproduces
			// (with the flags its header gives).
			if words[len(words)-1] != "shoe" {
				exp, err := exec.Command(filepath.Join(binaries(t), "sabot"), "export", "--state", state).Output()
				if err != nil {
					t.Fatalf("sabot export: %v", err)
				}
				hdr := regexp.MustCompile(`(?m)^# check with: sabot check (.*)$`).FindSubmatch(exp)
				if hdr == nil {
					t.Fatalf("export has no check flags:\n%s", exp)
				}
				again := expectedCheck(t, string(exp), strings.Fields(string(hdr[1]))...)
				if again != want {
					t.Fatalf("sabot check of the exported journal:\n%s\nwant:\n%s\nexport:\n%s", again, want, exp)
				}
			}
			var coupLogs int
			for _, line := range strings.Split(p.logs.String(), "\n") {
				var m map[string]any
				if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "coup" {
					coupLogs++
				}
			}
			if wantCoups := strings.Count(want, `"type":"coup"`); coupLogs != wantCoups {
				t.Errorf("%d coup log lines, want %d", coupLogs, wantCoups)
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// beetekStream renders a transcript's coups as a Bee-Tek shoe's output:
// cards as " [Game]<Card:4S> " (burn cards in "[Manual Burn Cards]" mode),
// rank and suit in both orders, tens as "10" or "T", some records glued
// together without spaces, and between coups a hardware alarm, a warning or
// an unreadable read. It returns the bytes and how many alarm/warning and
// unreadable records it put in.
func beetekStream(toks []tableau.Token, burn int) (stream []byte, alarms, unreadable int) {
	var b bytes.Buffer
	cards := 0
	coupCards := 0
	for i, tok := range toks {
		if tok.Kind != tableau.TokCard {
			continue
		}
		c := tok.Card
		rank := c.Rank.String()
		if c.Rank == card.Rank10 && i%2 == 0 {
			rank = "10"
		}
		text := rank + c.Suit.String()
		if i%3 == 1 {
			text = c.Suit.String() + rank
		}
		mode := "Game"
		if cards < burn {
			mode = "Manual Burn Cards"
		}
		sep := " "
		if i%5 == 0 {
			sep = "" // glued to the next record
		}
		fmt.Fprintf(&b, " [%s]<Card:%s>%s", mode, text, sep)
		cards++
		coupCards++
		if i+1 < len(toks) && toks[i+1].Kind == tableau.TokMarker {
			// Between coups.
			switch (cards / 5) % 7 {
			case 1:
				b.WriteString(" [GameAlarm]<Alarm:E7 Jam> ")
				alarms++
			case 3:
				b.WriteString(" <W0x01> ")
				alarms++
			case 5:
				b.WriteString(" [Game]<Game> ")
				unreadable++
			}
		}
	}
	return b.Bytes(), alarms, unreadable
}

// TestE2EBeetek feeds the clean 8-deck sample shoe as a Bee-Tek byte
// stream, written in random-sized pieces, to a real sabotd: the coups and
// alerts received equal `sabot check --markers off` (Bee-Tek shoes have no
// coup button), and every alarm, warning and unreadable read becomes its
// daemon alert.
func TestE2EBeetek(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	broker := testenv.StartMosquitto(t)
	file := "../../../tableau/testdata/clean-8deck.shoe"
	src, _ := os.ReadFile(file)
	toks, err := tableau.ParseTranscript(bytes.NewReader(src), file)
	if err != nil {
		t.Fatal(err)
	}
	var plain []string
	for _, tok := range toks {
		if tok.Kind != tableau.TokMarker {
			plain = append(plain, tok.String())
		}
	}
	want := expectedCheck(t, strings.Join(plain, " "), "--markers", "off")
	burn := toks[1].Card.Value()
	if burn == 0 {
		burn = 10
	}
	stream, alarms, unreadable := beetekStream(toks, burn+1)
	if alarms == 0 || unreadable == 0 {
		t.Fatalf("stream has %d alarms and %d unreadable reads", alarms, unreadable)
	}
	ptmx, tty, err := openPTY(t)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	r := newReceived()
	subscribe(t, broker.URL, "sabot/E2E-BT", r)
	p := startSabotd(t, e2eConfig("E2E-BT", tty.Name(), "beetek", "auto", broker.URL, t.TempDir(), ""))
	p.waitOnline(t)
	// Split into pieces of 1–23 bytes, with the odd pause.
	for i, n := 0, 0; i < len(stream); i += n {
		n = min(1+(i*7)%23, len(stream)-i)
		if _, err := ptmx.Write(stream[i : i+n]); err != nil {
			t.Fatal(err)
		}
		if i%11 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	n := countLines(want) + alarms + unreadable
	waitFor(t, fmt.Sprintf("%d events", n), 20*time.Second, func() bool { return len(r.events()) >= n })
	time.Sleep(50 * time.Millisecond)
	var checkEvents []map[string]any
	gotAlarms, gotUnreadable := 0, 0
	for _, e := range r.events() {
		switch e["code"] {
		case "shoe-alarm":
			gotAlarms++
			continue
		case "unreadable-card":
			gotUnreadable++
			continue
		case "shoe-online", "shoe-offline":
			continue
		}
		checkEvents = append(checkEvents, e)
	}
	matchEvents(t, checkEvents, want)
	if gotAlarms != alarms || gotUnreadable != unreadable {
		t.Fatalf("shoe-alarm %d (want %d), unreadable-card %d (want %d)", gotAlarms, alarms, gotUnreadable, unreadable)
	}
	if took, err := p.term(); err != nil || took > 10*time.Second {
		t.Fatalf("SIGTERM: %v after %v", err, took)
	}
}
