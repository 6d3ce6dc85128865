package config

import (
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// TestAdvantageThresholdKey: [alerts] advantage_threshold has the meaning
// of `sabot check --advantage` (odds.AdvantageThreshold): absent is off,
// 0 is on for any positive expectation (it used to mean off), and a
// negative value or one of 1 or more is refused naming the key.
func TestAdvantageThresholdKey(t *testing.T) {
	const base = "table = \"T\"\n[shoe]\ndevice = \"/dev/sabot-shoe\"\n[mqtt]\nbrokers = [\"tcp://10.0.0.5:1883\"]\n[display]\nkind = \"none\"\n[state]\ndir = \"/var/lib/sabot\"\n"
	cfg, err := Parse([]byte(base), "c.toml")
	if err != nil {
		t.Fatal(err)
	}
	if a, err := cfg.Alerts.Advantage(); err != nil || a.On() {
		t.Errorf("absent key: %v, on=%v; want off", err, a.On())
	}
	for _, tc := range []struct {
		val  string
		want float64
	}{{"0", 0}, {"0.0", 0}, {"0.01", 0.01}} {
		cfg, err := Parse([]byte(base+"[alerts]\nadvantage_threshold = "+tc.val+"\n"), "c.toml")
		if err != nil {
			t.Errorf("%s: %v", tc.val, err)
			continue
		}
		a, err := cfg.Alerts.Advantage()
		if err != nil || !a.On() || a.Value() != tc.want {
			t.Errorf("%s: on=%v value %v err %v", tc.val, a.On(), a.Value(), err)
		}
		tb, err := cfg.NewTable(nil)
		if err != nil || tb == nil {
			t.Errorf("%s: newTable: %v", tc.val, err)
		}
	}
	for _, bad := range []string{"-1", "-0.01", "1", "5", "nan"} {
		_, err := Parse([]byte(base+"[alerts]\nadvantage_threshold = "+bad+"\n"), "c.toml")
		if err == nil || !strings.Contains(err.Error(), "c.toml:11: alerts.advantage_threshold") || !strings.Contains(err.Error(), "0 ≤ T < 1") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	// --print-config of the defaults has no key (off), and prints a set one.
	out, err := toml.Marshal(Default())
	if err != nil || strings.Contains(string(out), "advantage_threshold") {
		t.Errorf("defaults print %v:\n%s", err, out)
	}
	cfg, _ = Parse([]byte(base+"[alerts]\nadvantage_threshold = 0.02\n"), "c.toml")
	if out, err := toml.Marshal(cfg); err != nil || !strings.Contains(string(out), "advantage_threshold = 0.02") {
		t.Errorf("set key prints %v:\n%s", err, out)
	}
}
