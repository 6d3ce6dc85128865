package daemon

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-table/sabot/cmd/internal/config"
)

// FuzzParseConfig: no input panics the loader; every error is a config
// error naming the file; an accepted file prints (--print-config) as a file
// that is accepted and prints the same again.
func FuzzParseConfig(f *testing.F) {
	for _, name := range []string{"sabotd.toml", "sabotd-minimal.toml"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "..", "systemd", name)); err == nil {
			f.Add(b)
		}
	}
	for _, c := range configGaps() {
		f.Add([]byte(c.src))
	}
	f.Add([]byte("table = \"T\"\nshoe = { device = \"/d\", protocol = \"beetek\" }\ndisplay = { kind = \"ht16k33\", layout = \"linear\" }\n"))
	f.Add([]byte("table = \"T\"\n[shoe]\ndevice = \"/d\"\n[display]\nkind = \"tm1637\"\norder = [1, 0, 3, 2]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := config.Parse(data, "f.toml")
		if err != nil {
			var ce *config.Error
			if !errors.As(err, &ce) && !strings.HasPrefix(err.Error(), "config: f.toml") {
				t.Fatalf("error %q is not a config error naming the file", err)
			}
			return
		}
		out, err := config.Marshal(cfg)
		if err != nil {
			t.Fatalf("accepted config does not print: %v", err)
		}
		back, err := config.Parse(out, "printed")
		if err != nil {
			t.Fatalf("printed config is refused: %v\n%s", err, out)
		}
		again, err := config.Marshal(back)
		if err != nil || !bytes.Equal(out, again) {
			t.Fatalf("printed config does not print the same (%v):\n%s\n---\n%s", err, out, again)
		}
	})
}
