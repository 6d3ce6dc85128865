package main

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/audit"
	"github.com/sabot-table/sabot/tableau"
	"github.com/sabot-table/sabot/tableau/baccarat"
)

// spoolFiles lists the spool files `sabot check` leaves in dir.
func spoolFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "sabot-check-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheckStdinSpooled: standard input is spooled to a temporary file for
// the two passes and the file is removed afterwards, on success and on a
// parse error (which prints nothing on standard output).
func TestCheckStdinSpooled(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	src, err := os.ReadFile("../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCheckArgs(t, string(src), "-")
	want, _ := os.ReadFile("../../tableau/testdata/clean-8deck.expected.jsonl")
	if code != 0 || errs != "" || len(jsonLines(t, out)) != len(jsonLines(t, string(want))) {
		t.Errorf("stdin: exit %d stderr %q, %d lines", code, errs, len(jsonLines(t, out)))
	}
	if left := spoolFiles(t, tmp); len(left) != 0 {
		t.Errorf("spool files left: %v", left)
	}
	code, out, errs = runCheckArgs(t, string(src)+"\n7X\n", "-")
	if code != 2 || out != "" || !strings.HasPrefix(errs, "<stdin>:") || !strings.Contains(errs, `unknown token "7X"`) {
		t.Errorf("parse error at the end: exit %d stdout %d bytes stderr %q", code, len(out), errs)
	}
	if left := spoolFiles(t, tmp); len(left) != 0 {
		t.Errorf("spool files left after an error: %v", left)
	}
	// An error early in a long standard input: the first pass gives up
	// after its first read and reads the input again from the spool, then
	// the rest: the position is exact.
	big := "shoe 2H 3C 4D |\n9S 1H\n" + strings.Repeat(string(src), 40)
	code, out, errs = runCheckArgs(t, big, "-")
	if code != 2 || out != "" || errs != "<stdin>:2:4: unknown token \"1H\"\n" {
		t.Errorf("early error: exit %d stdout %d bytes stderr %q", code, len(out), errs)
	}
	// Unicode white space (no-break spaces, a line separator) is white
	// space: the same coups as with ASCII spaces, on 40 shoes read again.
	uni := strings.NewReplacer(" |", "\u00a0|", "\n", "\u2028\n").Replace(strings.Repeat(string(src), 40))
	_, want40, _ := runCheckArgs(t, strings.Repeat(string(src), 40), "-")
	code, out, errs = runCheckArgs(t, uni, "-")
	if code != 0 || errs != "" || out != want40 {
		t.Errorf("unicode spaces: exit %d stderr %q, %d bytes of output, want %d", code, errs, len(out), len(want40))
	}
	if left := spoolFiles(t, tmp); len(left) != 0 {
		t.Errorf("spool files left: %v", left)
	}
}

// TestCheckStdinRegularFile: `sabot check < file` reads the file in place
// (no spool: TMPDIR does not exist) and gives the same output as `sabot check file`.
func TestCheckStdinRegularFile(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing")) // a spool would fail
	const path = "../../tableau/testdata/extra-card.shoe"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var o1, e1 strings.Builder
	code := run(context.Background(), []string{"check"}, f, &o1, &e1)
	_, o2, _ := runCheckArgs(t, "", path)
	if code != 1 || o1.String() != o2 || e1.String() != "" {
		t.Errorf("exit %d stderr %q\n%s\nwant\n%s", code, e1.String(), o1.String(), o2)
	}
}

// TestCheckFIFO: a FILE that is a named pipe (sabot check <(zcat …)) is
// read once and spooled, and the spool is removed.
func TestCheckFIFO(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	fifo := filepath.Join(t.TempDir(), "shoe.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile("../../tableau/testdata/missing-card.shoe")
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write(src)
		w.Close()
	}()
	code, out, errs := runCheckArgs(t, "", fifo)
	_, want, _ := runCheckArgs(t, "", "../../tableau/testdata/missing-card.shoe")
	if code != 1 || out != want || errs != "" {
		t.Errorf("fifo: exit %d stderr %q\n%s\nwant\n%s", code, errs, out, want)
	}
	if left := spoolFiles(t, tmp); len(left) != 0 {
		t.Errorf("spool files: %v", left)
	}
}

// TestCheckEmptyAndDirectory: a transcript without a card is reported, not
// passed as clean; a directory is named as one.
func TestCheckEmptyAndDirectory(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.shoe")
	os.WriteFile(empty, nil, 0o644)
	code, out, errs := runCheckArgs(t, "", empty)
	if code != 1 || out != "" || errs != "sabot check: "+empty+": no cards (0 bytes, nothing to check)\n" {
		t.Errorf("empty file: exit %d stdout %q stderr %q", code, out, errs)
	}
	comments := filepath.Join(dir, "comments.shoe")
	os.WriteFile(comments, []byte("# nothing dealt\nshoe\n"), 0o644)
	if code, out, errs := runCheckArgs(t, "", comments); code != 1 || out != "" || !strings.Contains(errs, comments+": no cards") {
		t.Errorf("comments only: exit %d stdout %q stderr %q", code, out, errs)
	}
	if code, out, errs := runCheckArgs(t, "", "-"); code != 1 || out != "" || !strings.Contains(errs, "<stdin>: no cards") {
		t.Errorf("empty stdin: exit %d stdout %q stderr %q", code, out, errs)
	}
	code, out, errs = runCheckArgs(t, "", dir)
	if code != 2 || out != "" || errs != "sabot check: "+dir+": is a directory\n" {
		t.Errorf("directory: exit %d stdout %q stderr %q", code, out, errs)
	}
}

// TestCheckVoidIgnoredWarning: a "void" that voids nothing is reported on
// standard error with its position and the reason; the JSON output and the
// exit status are those of the fold.
func TestCheckVoidIgnoredWarning(t *testing.T) {
	for _, tc := range []struct {
		src, args, want string
	}{
		{"shoe 2H 3C 4D | 5S 5H 2C 2D |\nvoid 9S 9H 9C 9D |", "", `<stdin>:2:1: warning: void ignored: coup 1 of shoe 1 was already closed by "|"` + "\n"},
		{"shoe 2H 3C 4D | 5S 5H void 2C void 2D |", "", `<stdin>:1:31: warning: void ignored: coup 1 of shoe 1 is already voided` + "\n"},
		{"shoe 2H void 3C 4D | 5S 5H 2C 2D |", "", `<stdin>:1:9: warning: void ignored: shoe 1 is still burning cards, no coup to void` + "\n"},
		{"shoe 2H 3C 4D | void 5S 5H 2C 2D |", "", `<stdin>:1:17: warning: void ignored: no coup dealt yet in shoe 1` + "\n"},
		{"2H 3C 4D 5S 5H 2C void void 2D 9S 9H 9C 9D", "off", `<stdin>:1:24: warning: void ignored: coup 1 of shoe 1 is already voided` + "\n"},
		{"shoe 2H 3C 4D | 5S 5H 2C 2D void |", "", ""},
	} {
		args := []string{"-"}
		if tc.args != "" {
			args = append(args, "--markers", tc.args)
		}
		code, out, errs := runCheckArgs(t, tc.src, args...)
		f, _ := tableau.NewFold(tableau.Options{Markers: tc.args == ""})
		toks, _ := tableau.ParseTranscript(strings.NewReader(tc.src), "")
		var evs []tableau.Event
		for _, tk := range toks {
			evs = f.Feed(tk, evs)
		}
		evs = f.End(evs)
		var want strings.Builder
		wantCode := 0
		for _, e := range evs {
			fmt.Fprintln(&want, e.String())
			if e.Kind == baccarat.EventAlert {
				wantCode = 1
			}
		}
		if errs != tc.want || out != want.String() || code != wantCode {
			t.Errorf("%q: exit %d (want %d) stderr %q, want %q\n%s", tc.src, code, wantCode, errs, tc.want, out)
		}
	}
}

// TestCheckHugeTokenConstantMemory: `sabot check` of a file holding a
// 64 MiB token refuses it with file:line:col and a short quote, prints
// nothing on standard output and allocates under 2 MiB doing so.
func TestCheckHugeTokenConstantMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.shoe")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("shoe 2H 3C 4D |\n9S 3H KD 5C | ")
	chunk := []byte(strings.Repeat("A", 1<<20))
	for range 64 {
		f.Write(chunk)
	}
	f.Close()
	chunk = nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, out, errs := runCheckArgs(t, "", path)
	runtime.ReadMemStats(&after)
	if want := path + `:2:15: token longer than 64 bytes: "AAAAAAAAAAAAAAAA"…` + "\n"; code != 2 || out != "" || errs != want {
		t.Errorf("exit %d stdout %q stderr %q, want %q", code, out, errs, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
		t.Errorf("allocated %d bytes", alloc)
	}
}

// heapWriter discards what is written and records the largest heap in use
// (runtime.MemStats.HeapAlloc: live objects plus garbage not yet swept) at
// each write: output is written while the input is read, so this samples
// the heap throughout the run.
type heapWriter struct{ max uint64 }

func (h *heapWriter) Write(p []byte) (int, error) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.max = max(h.max, ms.HeapAlloc)
	return len(p), nil
}

// TestCheckMemoryDoesNotGrow: the heap while checking 256 shoes is no
// larger than while checking one (give or take the garbage collector's
// slack), where holding the transcript took about 50 bytes per input byte
// (256 shoes: 800 KB of input, 40 MB of heap).
func TestCheckMemoryDoesNotGrow(t *testing.T) {
	one, err := os.ReadFile("../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := func(n int) string {
		p := filepath.Join(dir, fmt.Sprintf("x%d.shoe", n))
		if err := os.WriteFile(p, []byte(strings.Repeat(string(one), n)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small, big := path(1), path(256)
	peak := func(p string) uint64 {
		runtime.GC()
		var w heapWriter
		if code := run(context.Background(), []string{"check", p}, nil, &w, io.Discard); code != 0 {
			t.Errorf("%s: exit %d", p, code)
		}
		return w.max
	}
	ps := max(peak(small), peak(small))
	pb := peak(big)
	t.Logf("heap: %d bytes checking 1 shoe, %d checking 256", ps, pb)
	if pb > ps+4<<20 {
		t.Errorf("heap %d bytes checking 256 shoes, %d checking one", pb, ps)
	}
}

// BenchmarkCheckThroughput runs `sabot check` (both passes: tokenize, then
// tokenize, fold, encode and write) over 256 copies of the clean 8-deck
// shoe (809 KB, 21,504 coups) to io.Discard; MB/s is input bytes per
// second. The 100 MB measuring command is in docs/cli.md ("Checking a
// year of a busy table").
func BenchmarkCheckThroughput(b *testing.B) { benchCheckThroughput(b) }

// BenchmarkCheckThroughputOneFold is BenchmarkCheckThroughput with one
// fold (as for the games foldCheckShoes does not fold), for comparison.
func BenchmarkCheckThroughputOneFold(b *testing.B) {
	audit.SerialFold = true
	defer func() { audit.SerialFold = false }()
	benchCheckThroughput(b)
}

func benchCheckThroughput(b *testing.B) {
	one, err := os.ReadFile("../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		b.Fatal(err)
	}
	src := strings.Repeat(string(one), 256)
	p := filepath.Join(b.TempDir(), "year.shoe")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	cpu0 := cpuSeconds(b)
	for b.Loop() {
		if code := run(context.Background(), []string{"check", p}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	// On a shared machine wall-clock MB/s falls with the others' load;
	// input bytes per second of this process's CPU time (user + system,
	// all threads) much less so.
	if cpu := cpuSeconds(b) - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(src))*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}

// cpuSeconds is the CPU time this process has used so far.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// TestCheckAdvantageThresholdMeaning: --advantage has the meaning of
// odds.AdvantageThreshold (and of sabotd's advantage_threshold): a
// negative threshold or one of 1 or more is refused naming the flag (it
// used to print "advantage" alerts for losing bets), "off" is off, and 0
// alerts on positive expectations only.
func TestCheckAdvantageThresholdMeaning(t *testing.T) {
	const shoe = "testdata/ez-late-dragon7.shoe"
	for _, bad := range []string{"-1", "-0.5", "1", "5", "NaN", "x"} {
		code, out, errs := runCheckArgs(t, "", "--rules", "ez", "--advantage", bad, shoe)
		if code != 2 || out != "" || !strings.Contains(errs, `invalid value "`+bad+`" for flag -advantage`) {
			t.Errorf("--advantage %s: exit %d stdout %d bytes stderr %.200q", bad, code, len(out), errs)
		}
	}
	_, plain, _ := runCheckArgs(t, "", "--rules", "ez", shoe)
	if code, out, _ := runCheckArgs(t, "", "--rules", "ez", "--advantage", "off", shoe); code != 0 || out != plain {
		t.Errorf("--advantage off: exit %d, output differs from no flag", code)
	}
	_, out, _ := runCheckArgs(t, "", "--rules", "ez", "--advantage", "0", shoe)
	n := 0
	for _, m := range jsonLines(t, out) {
		if m["code"] == "advantage" {
			n++
			if ev, _ := m["ev"].(float64); !(ev > 0) {
				t.Errorf("advantage alert with expectation %v at threshold 0: %v", m["ev"], m)
			}
		}
	}
	if n != 17 {
		t.Errorf("%d advantage alerts at threshold 0, want 17", n)
	}
}

// actWriter discards output and runs act once, at the first write: the
// second pass is then under way.
type actWriter struct {
	act  func()
	done bool
}

func (a *actWriter) Write(p []byte) (int, error) {
	if !a.done {
		a.done = true
		a.act()
	}
	return len(p), nil
}

// TestCheckFileChangedBetweenPasses: a FILE truncated, or rewritten in
// place, while the second pass reads it is reported (exit 2) rather than
// passed off as checked; bytes appended are not read and are no error.
func TestCheckFileChangedBetweenPasses(t *testing.T) {
	t.Parallel() // latency-bound: .ci/test runs such tests side by side
	one, err := os.ReadFile("../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	// 800 KB: the second pass reads at most a few hundred KB ahead of
	// the first write (its read buffer and batches), so a change near the
	// end of the first half is read after it.
	src := strings.Repeat(string(one), 256)
	p := filepath.Join(t.TempDir(), "live.shoe")
	for _, tc := range []struct {
		name    string
		act     func()
		code    int
		errHas  string
		outWant bool
	}{
		{"truncated", func() { os.Truncate(p, int64(len(src)/2)) }, 2, "changed while it was being checked", false},
		{"rewritten", func() {
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.WriteAt([]byte("x"), int64(len(src)-3)) // inside the last comment: still valid
			f.Close()
		}, 2, "changed while it was being checked", false},
		{"rewritten with a bad token", func() {
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.WriteAt([]byte("ZZ"), int64(len(src)-len(one)+strings.Index(string(one), "\nshoe\n")+1)) // "ZZoe"
			f.Close()
		}, 2, "unknown token \"ZZoe\"\nsabot check: " + p + ": changed while it was being checked", false},
		{"rewritten in the first half", func() {
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.WriteAt([]byte("x"), int64(100*len(one)+4)) // inside the first comment of shoe 101 of 256
			f.Close()
		}, 2, "changed while it was being checked", false},
		{"appended", func() {
			f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString("shoe 2H 3C 4D |\n9S 1H |\n") // not read: no parse error either
			f.Close()
		}, 0, "", true},
	} {
		for _, split := range []bool{false, true} { // the first pass in one part, or two
			withSplitScan(t, split)
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			var errb strings.Builder
			w := &actWriter{act: tc.act}
			code := run(context.Background(), []string{"check", p}, nil, w, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.errHas) || (tc.errHas == "") != (errb.String() == "") {
				t.Errorf("%s (split first pass %v): exit %d stderr %q", tc.name, split, code, errb.String())
			}
		}
	}
}

// withSplitScan makes the first pass split every regular file in two
// parts (split) or none, until the test ends.
func withSplitScan(t *testing.T, split bool) {
	old := audit.SplitScanMin
	t.Cleanup(func() { audit.SplitScanMin = old })
	audit.SplitScanMin = math.MaxInt64
	if split {
		audit.SplitScanMin = 0
	}
}

// TestCheckSplitFirstPass: the first pass in two parts scanned at once
// (QuickScan and QuickScanRest, split after a newline near the middle)
// gives what the one-part pass gives — exit status, standard output and
// standard error, positions of errors included — on the samples and on
// inputs whose error, Unicode white space, byte order mark or lack of any
// newline sits in either half.
func TestCheckSplitFirstPass(t *testing.T) {
	one, err := os.ReadFile("../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	clean := strings.Repeat(string(one), 4)
	half := len(clean) / 2
	inputs := map[string]string{
		"clean":                          clean,
		"bom":                            "\uFEFF" + clean,
		"error in the first half":        clean[:100] + " ZZ " + clean[100:],
		"error in the second half":       clean[:half+200] + " ZZ " + clean[half+200:],
		"error at the end":               clean + "ZZ",
		"unicode space in second half":   clean[:half+200] + "\u00a0" + clean[half+200:],
		"bom after the middle newline":   clean[:half+strings.IndexByte(clean[half:], '\n')+1] + "\uFEFF" + clean[half+strings.IndexByte(clean[half:], '\n')+1:],
		"no newline":                     strings.ReplaceAll(strings.ReplaceAll(clean, "#", " "), "\n", " "),
		"one long comment at the middle": clean[:half-10] + "#" + strings.Repeat("c", 70<<10) + "\n" + clean[half-10:],
		"void ignored":                   clean[:half+200] + " void void " + clean[half+200:],
	}
	// "dealer" and its id on either side of the newline the halves are
	// split at (the first half then ends in "dealer": the Lexer reads it).
	k := half + strings.Index(clean[half:], " | ") + 2 // after a "|", outside comments
	a, b := clean[:k], clean[k:]
	if d := len(a) - len(b); d > 0 {
		b += strings.Repeat(" ", d)
	} else {
		a = strings.Repeat(" ", -d) + a
	}
	inputs["dealer id after the middle newline"] = a + " dealer\nD-1 " + b
	paths, _ := filepath.Glob("../../tableau/testdata/*.shoe")
	more, _ := filepath.Glob("testdata/*.shoe")
	for _, q := range append(paths, more...) {
		b, err := os.ReadFile(q)
		if err != nil {
			t.Fatal(err)
		}
		inputs[q] = string(b)
	}
	dir := t.TempDir()
	for name, src := range inputs {
		p := filepath.Join(dir, "in.shoe")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		var got [2]string
		for i, split := range []bool{false, true} {
			withSplitScan(t, split)
			var out, errb strings.Builder
			code := run(context.Background(), []string{"check", p}, nil, &out, &errb)
			got[i] = fmt.Sprintf("exit %d\nstderr %s\nstdout %d bytes %x", code, errb.String(), out.Len(), crc32.Checksum([]byte(out.String()), crc32.MakeTable(crc32.Castagnoli)))
		}
		if got[0] != got[1] {
			t.Errorf("%s: one part:\n%s\ntwo parts:\n%s", name, got[0], got[1])
		}
	}
}

// TestOddsBatchLongLine: a --batch line past maxOddsLine is refused with
// its line and column after the lines before it are answered, in constant
// memory.
func TestOddsBatchLongLine(t *testing.T) {
	in := io.MultiReader(strings.NewReader("5H 5\n"), &repeatReader{b: 'A', n: 64 << 20})
	var out, errb strings.Builder
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code := run(context.Background(), []string{"odds", "--batch"}, in, &out, &errb)
	runtime.ReadMemStats(&after)
	if want := "sabot odds: <stdin>:2:65537: line longer than 65536 bytes\n"; code != 2 || errb.String() != want || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("exit %d stderr %q (want %q), %d output lines", code, errb.String(), want, strings.Count(out.String(), "\n"))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
		t.Errorf("allocated %d bytes", alloc)
	}
}

// repeatReader yields n copies of byte b without holding them.
type repeatReader struct {
	b byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return int(k), nil
}

// failWriter accepts n bytes, then fails every write.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, syscall.EPIPE
	}
	w.n -= len(p)
	return len(p), nil
}

// TestCheckOutputFails: standard output failing at the start, in the
// middle or near the end of a long check exits 2 naming the write error,
// and every goroutine of the second pass (lexer, one or two folds,
// writer) has ended when run returns.
func TestCheckOutputFails(t *testing.T) {
	one, err := os.ReadFile("../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Repeat(string(one), 16)
	p := filepath.Join(t.TempDir(), "year.shoe")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var full strings.Builder
	if code := run(context.Background(), []string{"check", p}, nil, &full, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	before := runtime.NumGoroutine()
	for _, two := range []bool{false, true} { // one fold or two
		audit.SerialFold, audit.ParFoldAll = !two, two
		for _, n := range []int{0, 100, full.Len() / 2, full.Len() - 10} {
			var errb strings.Builder
			code := run(context.Background(), []string{"check", p}, nil, &failWriter{n: n}, &errb)
			if code != 2 || !strings.Contains(errb.String(), "writing output: broken pipe") {
				t.Errorf("output failing after %d of %d bytes (two folds %v): exit %d stderr %q", n, full.Len(), two, code, errb.String())
			}
		}
	}
	audit.SerialFold, audit.ParFoldAll = false, false
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before, %d after", before, after)
	}
}

// TestCheckInterruptedSecondPass: an interrupt (the context canceled)
// while the second pass writes exits 2 with "interrupted" and leaves no
// goroutine behind, with one fold or two.
func TestCheckInterruptedSecondPass(t *testing.T) {
	one, err := os.ReadFile("../../tableau/testdata/clean-8deck.shoe")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "year.shoe")
	if err := os.WriteFile(p, []byte(strings.Repeat(string(one), 256)), 0o644); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for _, two := range []bool{false, true} {
		audit.SerialFold, audit.ParFoldAll = !two, two
		ctx, cancel := context.WithCancel(context.Background())
		var errb strings.Builder
		code := run(ctx, []string{"check", p}, nil, &actWriter{act: cancel}, &errb)
		cancel()
		if code != 2 || !strings.Contains(errb.String(), "sabot check: interrupted") {
			t.Errorf("two folds %v: exit %d stderr %q", two, code, errb.String())
		}
	}
	audit.SerialFold, audit.ParFoldAll = false, false
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before, %d after", before, after)
	}
}
