package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-table/sabot/cmd/internal/config"
)

// gapCase is a configuration the daemon cannot use: it must stop sabotd at
// startup with exit status 2 (which the systemd unit does not restart) and
// an error naming the file, the line and the key.
type gapCase struct {
	name string
	src  string // the file; "%DIR%" is replaced by a scratch directory
	want []string
}

func configGaps() []gapCase {
	// The state directory and the HTTP server are set so that a daemon that
	// wrongly starts touches nothing outside the test's directory.
	const head = "table = \"T1\"\nstate.dir = \"%DIR%/state\"\nhttp.addr = \"off\"\n[shoe]\ndevice = \"/dev/x\"\n"
	return []gapCase{
		{"missing password_file", head + "[mqtt]\nusername = \"u\"\npassword_file = \"%DIR%/nope\"\n",
			[]string{"c.toml:8: mqtt.password_file:", "no such file"}},
		{"empty password_file", head + "[mqtt]\nusername = \"u\"\npassword_file = \"%DIR%/empty\"\n",
			[]string{"c.toml:8: mqtt.password_file:", "first line is empty"}},
		{"missing tls_ca", head + "[mqtt]\nbrokers = [\"ssl://b:8883\"]\ntls_ca = \"%DIR%/nope.pem\"\n",
			[]string{"c.toml:8: mqtt.tls_ca:", "no such file"}},
		{"tls_ca not PEM", head + "[mqtt]\nbrokers = [\"ssl://b:8883\"]\ntls_ca = \"%DIR%/empty\"\n",
			[]string{"c.toml:8: mqtt.tls_ca:", "no PEM certificate"}},
		{"missing tls_cert", head + "[mqtt]\ntls_cert = \"%DIR%/c.pem\"\ntls_key = \"%DIR%/k.pem\"\n",
			[]string{"c.toml:7: mqtt.tls_cert:"}},
		{"missing uid_registry", head + "uid_registry = \"%DIR%/cards.txt\"\n",
			[]string{"c.toml:6: shoe.uid_registry:", "no such file"}},
		{"uid_registry bad line", head + "uid_registry = \"%DIR%/badcards\"\n",
			[]string{"c.toml:6: shoe.uid_registry:", "badcards:2:", "want \"UID CARD\""}},
		{"uid_registry not a file", head + "uid_registry = \"%DIR%\"\n",
			[]string{"c.toml:6: shoe.uid_registry:", "not a regular file"}},
		{"broker without port", head + "[mqtt]\nbrokers = [\"tcp://127.0.0.1\"]\n",
			[]string{"c.toml:7: mqtt.brokers:", `"tcp://127.0.0.1"`, "port"}},
		{"broker bad port", head + "[mqtt]\nbrokers = [\"tcp://b:1883\", \"ssl://b:99999\"]\n",
			[]string{"c.toml:7: mqtt.brokers:", "entry 2", "99999"}},
		{"broker without host", head + "[mqtt]\nbrokers = [\"tcp://:1883\"]\n",
			[]string{"c.toml:7: mqtt.brokers:", "host"}},
		{"broker scheme", head + "[mqtt]\nbrokers = [\"http://b:1883\"]\n",
			[]string{"c.toml:7: mqtt.brokers:", `"http"`}},
		{"baud 12345", head + "baud = 12345\n",
			[]string{"c.toml:6: shoe.baud: 12345:", "9600", "115200"}},
		{"two outputs on one pin", head + "[gpio]\nlamp = \"GPIO17\"\nbuzzer = \"GPIO17\"\n",
			[]string{"c.toml:8: gpio.buzzer:", "gpio.lamp", "GPIO17"}},
		{"key and output on one pin", head + "[gpio]\nack_key = \"GPIO5\"\ntower_red = \"GPIO5\"\n",
			[]string{"gpio.tower_red", "gpio.ack_key", "GPIO5"}},
		{"output on the display's pin", head + "[display]\nkind = \"tm1637\"\n[gpio]\nlamp = \"GPIO23\"\n",
			[]string{"c.toml:9: gpio.lamp:", "display.clk", "GPIO23"}},
		{"upper-case section", "table = \"T1\"\nstate.dir = \"%DIR%/state\"\nhttp.addr = \"off\"\n[SHOE]\nDEVICE = \"/dev/x\"\n",
			[]string{"c.toml:4:", "SHOE: unknown key", "case", "shoe"}},
		{"upper-case key", head + "BAUD = 9600\n",
			[]string{"c.toml:6:", "shoe.BAUD: unknown key", "shoe.baud"}},
		{"decks in [shoe]", head + "decks = 6\n",
			[]string{"c.toml:6:", "shoe.decks: unknown key", "decks belongs at the top level"}},
		{"lamp in [display]", head + "[display]\nlamp = \"GPIO17\"\n",
			[]string{"c.toml:7:", "display.lamp: unknown key", "lamp belongs in [gpio]"}},
		{"baud at top level", "baud = 9600\n" + head,
			[]string{"c.toml:1:", "baud: unknown key", "baud belongs in [shoe]"}},
		{"http port not a number", "table = \"T1\"\nstate.dir = \"%DIR%/state\"\nhttp.addr = \"127.0.0.1:http-alt\"\n[shoe]\ndevice = \"/dev/x\"\n",
			[]string{"c.toml:3: http.addr:", "port"}},
		{"embedded password file plain text", head + "[mqtt]\nembedded_password_file = \"%DIR%/badpasswd\"\n",
			[]string{"c.toml:7: mqtt.embedded_password_file:", "badpasswd:2:", `user "pit": not a Mosquitto password hash`}},
		{"embedded acl file bad keyword", head + "[mqtt]\nembedded_acl_file = \"%DIR%/badacl\"\n",
			[]string{"c.toml:7: mqtt.embedded_acl_file:", "badacl:3:", `"topics": want user, topic or pattern`}},
		{"embedded acl file with brokers", head + "[mqtt]\nbrokers = [\"tcp://b:1883\"]\nembedded_acl_file = \"%DIR%/badacl\"\n",
			[]string{"c.toml:8: mqtt.embedded_acl_file:", "set with [mqtt] brokers"}},
		{"embedded broker on all addresses without a password file", head + "[mqtt]\nembedded_addr = \"0.0.0.0:0\"\n",
			[]string{"mqtt.embedded_addr:", "not loopback, so a password file is needed"}},
		{"empty operator", head + "[mqtt]\noperators = [\"alice\", \"\"]\n",
			[]string{"c.toml:7: mqtt.operators:", `entry 2 "": want 1 to 64 bytes`}},
		{"embedded broker port too large", head + "[mqtt]\nembedded_addr = \"127.0.0.1:70000\"\n",
			[]string{"c.toml:7: mqtt.embedded_addr:", "port"}},
		{"quoted key with a dot", "table = \"T1\"\nstate.dir = \"%DIR%/state\"\nhttp.addr = \"off\"\n\"shoe.device\" = \"/dev/x\"\n",
			[]string{"c.toml:4:", "unknown key"}},
		{"line too long", head + "# " + strings.Repeat("x", 5000) + "\n",
			[]string{"c.toml:6:4097: line longer than 4096 bytes"}},
		// [rules]: the house rules (baccarat.Rules.ProblemsGiven).
		{"commission 5 meant as 5%", head + "[rules]\ncommission = 5\n",
			[]string{"c.toml:7: rules.commission:", `"5": at most 10%`, `for 5% write "5%" or 0.05`}},
		{"commission not a rate", head + "[rules]\ncommission = true\n",
			[]string{"c.toml:7: rules.commission:", `"true": want a percentage such as "5%"`}},
		{"commission in thousandths of a percent", head + "[rules]\ncommission = \"2.125%\"\n",
			[]string{"c.toml:7: rules.commission:", "whole number of hundredths of a percent"}},
		{"commission under super6", "game = \"super6\"\n" + head + "[rules]\ncommission = \"4%\"\n",
			[]string{"c.toml:8: rules.commission:", "super6 charges no commission"}},
		{"tie pays 7", head + "[rules]\ntie_pays = 7\n",
			[]string{"c.toml:7: rules.tie_pays: 7: a tie pays 8 or 9 to 1"}},
		{"pair pays 0", head + "[rules]\npair_pays = 0\n",
			[]string{"c.toml:7: rules.pair_pays: 0: want 1 to 1000"}},
		{"suited pair below the pair pay", head + "[rules]\npair_pays = 12\npair_suited_pays = 11\n",
			[]string{"c.toml:8: rules.pair_suited_pays: 11: below pair_pays 12"}},
		{"suited pair negative", head + "[rules]\npair_suited_pays = -25\n",
			[]string{"c.toml:7: rules.pair_suited_pays: -25: want 0 (a suited pair pays as any pair) or the pair payout to 1000"}},
		{"unknown side bet", head + "[rules]\nside_bets = [\"dragon\", \"tiger\"]\n",
			[]string{"c.toml:7: rules.side_bets:", `side bet 2 "tiger" unknown`}},
		{"dragon pay table short", head + "[rules]\npays_dragon = [30, 10, 6]\n",
			[]string{"c.toml:7: rules.pays_dragon: 3 figures: want 6 (a non-natural win by 9, 8, 7, 6, 5, 4)"}},
		{"pay of 0", head + "[rules]\npays_big = 0\n",
			[]string{"c.toml:7: rules.pays_big: 0: want more than 0, at most 1000"}},
		{"pay above 1000", head + "[rules]\npays_lucky6 = [12, 2000]\n",
			[]string{"c.toml:7: rules.pays_lucky6: figure 2 (three cards) 2000: want more than 0, at most 1000"}},
		{"tie_pays in [shoe]", head + "tie_pays = 9\n",
			[]string{"c.toml:6:", "shoe.tie_pays: unknown key", "tie_pays belongs in [rules]"}},
		{"old rules key and game", "rules = \"ez\"\ngame = \"ez\"\n" + head,
			[]string{"c.toml:1: rules:", "keep game only"}},
		{"old tie_pays and [rules] tie_pays", "tie_pays = 9\n" + head + "[rules]\ntie_pays = 9\n",
			[]string{"c.toml:1: tie_pays:", "keep [rules] tie_pays only"}},
		{"unknown game", "game = \"macao\"\n" + head,
			[]string{"c.toml:1: game:", `"macao": must be "punto-banco", "super6", "ez", "chemin-de-fer" or "banque"`}},
		{"punter_five under punto banco", head + "[rules]\npunter_five = \"draw\"\n",
			[]string{"c.toml:7: rules.punter_five:", "punto-banco has no such rule"}},
		{"banker_table unknown", "game = \"chemin-de-fer\"\n" + head + "[rules]\nbanker_table = \"kemeny\"\n",
			[]string{"c.toml:8: rules.banker_table:", `"kemeny" (want scarne, free)`}},
		{"suited pair pay at banque", "game = \"banque\"\n" + head + "[rules]\npair_suited_pays = 25\n",
			[]string{"c.toml:8: rules.pair_suited_pays:", "25: banque has no pair bets; leave it out"}},
		{"tie pay at chemin de fer", "game = \"chemin-de-fer\"\n" + head + "[rules]\ntie_pays = 9\n",
			[]string{"c.toml:8: rules.tie_pays:", "9: chemin-de-fer has no tie bet; leave it out"}},
		{"side bets at banque", "game = \"banque\"\n" + head + "[rules]\nside_bets = [\"big\"]\n",
			[]string{"c.toml:8: rules.side_bets:", "not offered in banque"}},
		{"advantage check at chemin de fer", "game = \"chemin-de-fer\"\n" + head + "[alerts]\nadvantage_threshold = 0\n",
			[]string{"c.toml:8: alerts.advantage_threshold:", "not chemin-de-fer's"}},
		{"commission at banque", "game = \"banque\"\n" + head + "[rules]\ncommission = \"5%\"\n",
			[]string{"c.toml:8: rules.commission:", "banque charges no commission (the house holds the bank)"}},
		{"old rules key, unknown game", "rules = \"chemmy\"\n" + head,
			[]string{"c.toml:1: rules:", `"chemmy"`}},
		{"shift start not a time", head + "[dealer]\nshift_start = [\"06:00\", \"14h\"]\n",
			[]string{"c.toml:7: dealer.shift_start:", `item 2 "14h"`, "HH:MM"}},
		{"shift starts out of order", head + "[dealer]\nshift_start = [\"22:00\", \"06:00\"]\n",
			[]string{"c.toml:7: dealer.shift_start:", "start 2 (06:00) is not after start 1 (22:00)"}},
		{"shift time zone", head + "[dealer]\ntime_zone = \"Mars/Olympus\"\n",
			[]string{"c.toml:7: dealer.time_zone:", "Mars/Olympus"}},
		{"roster bad id", head + "[dealer]\nroster = [\"D1\", \"Anna B\"]\n",
			[]string{"c.toml:7: dealer.roster:", `item 2 "Anna B"`, "byte 5"}},
		{"roster twice", head + "[dealer]\nroster = [\"D1\", \"D2\", \"D1\"]\n",
			[]string{"c.toml:7: dealer.roster:", `item 3 "D1" is item 1 again`}},
		{"key gap", head + "[dealer]\nkey_gap_ms = 50\n",
			[]string{"c.toml:7: dealer.key_gap_ms:", "300–10000"}},
	}
}

func writeGap(t *testing.T, dir string, c gapCase) string {
	t.Helper()
	os.WriteFile(filepath.Join(dir, "empty"), nil, 0o600)
	os.WriteFile(filepath.Join(dir, "badcards"), []byte("04A1B2 AS\n04A1B3\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "badpasswd"), []byte("# users\npit:secret\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "badacl"), []byte("user pit\ntopic read sabot/#\ntopics write sabot/+/cmd/+\n"), 0o600)
	path := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(c.src, "%DIR%", dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigGaps: each value the daemon cannot use is a *config.Error from
// LoadConfig naming file, line and key.
func TestConfigGaps(t *testing.T) {
	for _, c := range configGaps() {
		t.Run(c.name, func(t *testing.T) {
			path := writeGap(t, t.TempDir(), c)
			_, err := config.Load(path)
			if err == nil {
				t.Fatal("accepted")
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Errorf("error %T is not a *config.Error: %v", err, err)
			}
			msg := strings.ReplaceAll(err.Error(), filepath.Dir(path)+"/", "")
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\nlacks %q", msg, w)
				}
			}
		})
	}
}

// TestConfigGapsExitTwo runs the real binary on each bad configuration,
// with and without --print-config: exit status 2 and the key named, never
// the exit status 1 that the systemd unit restarts in a loop.
func TestConfigGapsExitTwo(t *testing.T) {
	bin := filepath.Join(binaries(t), "sabotd")
	for _, c := range configGaps() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeGap(t, dir, c)
			for _, args := range [][]string{{"--config", path}, {"--config", path, "--print-config"}} {
				// A daemon that wrongly starts is stopped after a minute
				// (and the test fails): it would otherwise run forever.
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, bin, args...)
				cmd.SysProcAttr = dieWithTest()
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 2 {
					t.Fatalf("%v: %v, want exit status 2\n%s", args, err, stderr.String())
				}
				if stdout.Len() != 0 {
					t.Errorf("%v printed %q on stdout", args, stdout.String())
				}
				if msg := stderr.String(); !strings.Contains(msg, path+":") || !strings.Contains(msg, c.want[0][len("c.toml"):]) {
					t.Errorf("%v: stderr %q does not name %s and %q", args, msg, path, c.want[0])
				}
			}
		})
	}
}

// LoadConfig refuses what is not a regular file without opening it (a FIFO
// would block the start), and a file past MaxConfigBytes without reading
// more than that.
func TestLoadConfigNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := config.Load(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "fifo.toml: not a regular file") {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LoadConfig blocked on a FIFO")
	}
	if _, err := config.Load(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
	big := filepath.Join(dir, "big.toml")
	os.WriteFile(big, bytes.Repeat([]byte("# a comment line of the sort that goes on\n"), config.MaxConfigBytes/40), 0o600)
	if _, err := config.Load(big); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("big.toml: larger than %d bytes", config.MaxConfigBytes)) {
		t.Errorf("big file: %v", err)
	}
}

// manyKeys is a file of n unknown keys, one per line: the wrong file given
// as the configuration.
func manyKeys(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "k%d = 1\n", i)
	}
	return b.Bytes()
}

// A file of nothing but unknown keys is refused with the first
// config.MaxErrors of them, their positions right, and a count of the rest;
// past MaxConfigSettings lines it is refused before it is parsed.
func TestConfigErrorsBounded(t *testing.T) {
	src := manyKeys(config.MaxConfigSettings)
	_, err := config.Parse(src, "big.toml")
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	lines := strings.Split(msg, "\n")
	if len(lines) != config.MaxErrors+1 || lines[0] != "config: big.toml:1:1: k0: unknown key" ||
		lines[config.MaxErrors-1] != fmt.Sprintf("config: big.toml:%d:1: k%d: unknown key", config.MaxErrors, config.MaxErrors-1) ||
		lines[config.MaxErrors] != fmt.Sprintf("config: and %d more errors", config.MaxConfigSettings-config.MaxErrors) {
		t.Errorf("%d lines:\n%.2000s", len(lines), msg)
	}
	src = append(append([]byte("# a comment\n\n"), src...), "k = 2\n"...)
	_, err = config.Parse(src, "big.toml")
	if want := fmt.Sprintf("config: big.toml:%d: more than %d lines of settings", config.MaxConfigSettings+3, config.MaxConfigSettings); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%d settings: %v, want %s", config.MaxConfigSettings+1, err, want)
	}
}

// --config naming a directory: exit status 2 and an error saying it is a
// directory (it printed the mode "d---------").
func TestConfigIsADirectory(t *testing.T) {
	bin := filepath.Join(binaries(t), "sabotd")
	dir := t.TempDir()
	out, err := exec.Command(bin, "--config", dir).CombinedOutput()
	var x *exec.ExitError
	if !errors.As(err, &x) || x.ExitCode() != 2 || !strings.Contains(string(out), dir+": not a regular file: a directory") || strings.Contains(string(out), "d---------") {
		t.Errorf("sabotd --config DIR: %v\n%s", err, out)
	}
}
