package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sabot-table/sabot/cmd/internal/doctor"
)

func init() {
	register(&command{
		name:    "doctor",
		summary: "check a Pi's setup for sabotd (config, shoe port, udev rule, GPIO, SPI/I²C, clock, broker, state directory)",
		run:     runDoctor,
	})
}

const doctorUsage = `usage: sabot doctor [--config FILE] [flags]

Checks the setup sabotd runs in, as the systemd unit runs it (user sabot,
supplementary groups dialout, gpio, i2c and spi), and prints one line per
check: "ok", "warn" or "FAIL", and under each problem how to fix it.

  config  the file loads with sabotd's own loader (read in this process)
  user    the sabot user and the unit's groups exist
  shoe    [shoe] device exists, is a character device (or a link to one)
          and the sabot user may read and write it
  udev    the shoe's udev rule no longer has the placeholder serial number
  gpio    /dev/gpiochip* exist and are usable; every pin named exists
  spi/i2c the SPI and I²C devices the display names exist and are usable
  clock   the system clock is synchronised (adjtimex; a Pi has no RTC)
  mqtt    each [mqtt] broker answers a TCP connect; with none, the embedded
          broker's address is free or answering
  state   [state] dir exists, the sabot user may write in it, and it has at
          least --min-free-mb free (warn below)

Run it as root (sudo) to read every file; it reads only. Exit status: 0
nothing failed (warnings allowed), 1 a check failed, 2 bad flags.

Flags:
`

func runDoctor(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	d := doctor.New()
	fset := newFlagSet("doctor", doctorUsage, stderr)
	fset.StringVar(&d.ConfigPath, "config", d.ConfigPath, "sabotd's configuration `file`")
	// --sabotd named the program doctor ran to load the configuration; it
	// is read in this process now, and the flag is kept so that scripts
	// that give it still run.
	fset.String("sabotd", "", "ignored: the configuration is read with sabotd's loader in this process (kept for older scripts)")
	fset.StringVar(&d.User, "user", d.User, "the `user` sabotd runs as")
	groups := fset.String("groups", strings.Join(d.UnitGroups, ","), "the unit's supplementary `groups`, comma-separated")
	fset.Uint64Var(&d.MinFreeMB, "min-free-mb", d.MinFreeMB, "warn when [state] dir has less than `MiB` free")
	fset.DurationVar(&d.Timeout, "timeout", d.Timeout, "TCP connect `timeout` for each broker")
	fset.StringVar(&d.Paths.Dev, "path.dev", d.Paths.Dev, "where /dev is (tests)")
	fset.StringVar(&d.Paths.Etc, "path.etc", d.Paths.Etc, "where /etc is (passwd, group)")
	rules := fset.String("path.udev-rules", strings.Join(d.Paths.UdevRules, ","), "udev's rule `directories`, highest precedence first, comma-separated")
	if code, exit := flagsExit(parseFlags(fset, args), stderr, ""); exit {
		return code
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "sabot doctor: unexpected argument %q\n", fset.Arg(0))
		fset.Usage()
		return 2
	}
	d.UnitGroups = splitList(*groups)
	d.Paths.UdevRules = splitList(*rules)
	failed := false
	for _, f := range d.Run(ctx) {
		f.Write(stdout)
		failed = failed || f.Failed()
	}
	if failed {
		return 1
	}
	return 0
}

func splitList(s string) []string {
	var l []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			l = append(l, e)
		}
	}
	return l
}
