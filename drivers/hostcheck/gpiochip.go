package hostcheck

// GPIO line names, read from the kernel's GPIO character devices
// (/dev/gpiochipN, docs.kernel.org/userspace-api/gpio/chardev.html) the way
// periph host v3's gpioioctl driver reads them when sabotd starts: that
// driver registers every named line in periph's gpioreg under its line
// name, and sabotd's [gpio] pin names are looked up there. `sabot doctor`
// reads the same names here without linking periph's host drivers.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The structs of the GPIO character device ABI (linux/gpio.h), as bytes:
// struct gpiochip_info (GPIO_GET_CHIPINFO_IOCTL, the chip info of both ABI
// versions) and struct gpio_v2_line_info (GPIO_V2_GET_LINEINFO_IOCTL,
// kernel 5.10 or later, as periph uses). The kernel zero-fills both before
// copying the NUL-terminated strings in.
const (
	// chipInfoSize: char name[32], char label[32], __u32 lines.
	chipInfoSize = 68
	// lineInfoSize: char name[32], char consumer[32], __u32 offset,
	// __u32 num_attrs, __aligned_u64 flags, 10 attributes of 16 bytes,
	// __u32 padding[4].
	lineInfoSize = 256
	// gpioNameSize is GPIO_MAX_NAME_SIZE, the size of each string field.
	gpioNameSize = 32
	// lineOffsetAt is where gpio_v2_line_info's offset is: the line the
	// caller asks about.
	lineOffsetAt = 2 * gpioNameSize
)

// GPIOChipInfo is a GPIO chip as GPIO_GET_CHIPINFO_IOCTL describes it.
type GPIOChipInfo struct {
	// Name is the kernel's name of the chip ("gpiochip0").
	Name string
	// Label is the driver's label ("pinctrl-bcm2711" on a Pi 4,
	// "pinctrl-rp1" on a Pi 5); periph takes the name when it is empty.
	Label string
	// Lines is the number of GPIO lines, offsets 0 to Lines-1.
	Lines uint32
}

// GPIOLineInfo is the part of a line's GPIO_V2_GET_LINEINFO_IOCTL answer
// that names it.
type GPIOLineInfo struct {
	// Name is the line's name from the device tree ("GPIO17"), "" when
	// it has none.
	Name string
	// Consumer is who holds the line ("sabotd@812"), "" when free.
	Consumer string
	// Offset is the line's offset on its chip.
	Offset uint32
}

// ParseGPIOChipInfo decodes a struct gpiochip_info: 68 bytes, two
// NUL-padded 32-byte strings and the line count in the machine's byte
// order. Errors: a buffer of another size.
func ParseGPIOChipInfo(b []byte) (GPIOChipInfo, error) {
	if len(b) != chipInfoSize {
		return GPIOChipInfo{}, fmt.Errorf("hostcheck: gpiochip_info is %d bytes, not %d", len(b), chipInfoSize)
	}
	return GPIOChipInfo{
		Name:  cString(b[:gpioNameSize]),
		Label: cString(b[gpioNameSize : 2*gpioNameSize]),
		Lines: binary.NativeEndian.Uint32(b[2*gpioNameSize:]),
	}, nil
}

// ParseGPIOLineInfo decodes a struct gpio_v2_line_info: 256 bytes, the
// NUL-padded 32-byte name and consumer, then the offset in the machine's
// byte order (flags and attributes are not read). Errors: a buffer of
// another size.
func ParseGPIOLineInfo(b []byte) (GPIOLineInfo, error) {
	if len(b) != lineInfoSize {
		return GPIOLineInfo{}, fmt.Errorf("hostcheck: gpio_v2_line_info is %d bytes, not %d", len(b), lineInfoSize)
	}
	return GPIOLineInfo{
		Name:     cString(b[:gpioNameSize]),
		Consumer: cString(b[gpioNameSize:lineOffsetAt]),
		Offset:   binary.NativeEndian.Uint32(b[lineOffsetAt:]),
	}, nil
}

// cString is b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// GPIOChipDevice is an open GPIO character device. Ioctl makes one ioctl
// request whose argument is arg, the request's struct as bytes, which the
// kernel reads and writes. Tests fake it.
type GPIOChipDevice interface {
	Ioctl(req uint, arg []byte) error
	Close() error
}

// OpenGPIOChip opens a GPIO character device read-only (enough for the
// info ioctls, as gpioinfo does); it needs read permission on the device
// (group gpio on Raspberry Pi OS).
func OpenGPIOChip(path string) (GPIOChipDevice, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hostcheck: %w", err)
	}
	return chipFile{f}, nil
}

// chipFile is a GPIOChipDevice on an open file.
type chipFile struct{ f *os.File }

func (c chipFile) Ioctl(req uint, arg []byte) error {
	if len(arg) == 0 {
		return errors.New("hostcheck: ioctl with no argument")
	}
	rc, err := c.f.SyscallConn()
	if err != nil {
		return fmt.Errorf("hostcheck: %w", err)
	}
	var errno unix.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = unix.Syscall(unix.SYS_IOCTL, fd, uintptr(req), uintptr(unsafe.Pointer(&arg[0])))
	}); err != nil {
		return fmt.Errorf("hostcheck: %w", err)
	}
	if errno != 0 {
		return errno
	}
	return nil
}

func (c chipFile) Close() error { return c.f.Close() }

// ReadGPIOChip reads a chip's info and every line's info through dev.
// Errors name the ioctl that failed.
func ReadGPIOChip(dev GPIOChipDevice) (GPIOChipInfo, []GPIOLineInfo, error) {
	chip, lines, err := readChip(dev)
	if err != nil {
		return chip, nil, fmt.Errorf("hostcheck: %w", err)
	}
	return chip, lines, nil
}

// readChip is ReadGPIOChip, its errors without the package prefix.
func readChip(dev GPIOChipDevice) (GPIOChipInfo, []GPIOLineInfo, error) {
	b := make([]byte, chipInfoSize)
	if err := dev.Ioctl(unix.GPIO_GET_CHIPINFO_IOCTL, b); err != nil {
		return GPIOChipInfo{}, nil, fmt.Errorf("GPIO_GET_CHIPINFO_IOCTL: %w", err)
	}
	chip, err := ParseGPIOChipInfo(b)
	if err != nil {
		return GPIOChipInfo{}, nil, err
	}
	lines := make([]GPIOLineInfo, 0, chip.Lines)
	b = make([]byte, lineInfoSize)
	for off := range chip.Lines {
		clear(b)
		binary.NativeEndian.PutUint32(b[lineOffsetAt:], off)
		if err := dev.Ioctl(unix.GPIO_V2_GET_LINEINFO_IOCTL, b); err != nil {
			return chip, nil, fmt.Errorf("GPIO_V2_GET_LINEINFO_IOCTL line %d: %w", off, err)
		}
		l, err := ParseGPIOLineInfo(b)
		if err != nil {
			return chip, nil, err
		}
		lines = append(lines, l)
	}
	return chip, lines, nil
}

// GPIOLines are the GPIO line names of a machine, as periph's gpioioctl
// driver registers them in gpioreg.
type GPIOLines struct {
	// Chips are the chips read, in the order their names were taken
	// (chips labelled "pinctrl-*" first, then by label), each once.
	Chips []GPIOChipInfo
	// Names are the registered names: a line's name, or, when an
	// earlier chip has a line of that name, "<chip name>-<line name>"
	// (a name still taken then is dropped). Lines named "", "_" or "-"
	// have none.
	Names map[string]bool
}

// Has tells whether name is a registered line name. Names only: on a Pi 4
// or older periph's BCM283x driver also registers aliases (the bare
// number, "17", and the pin functions, "PWM0"), which sabotd would accept
// and this does not know.
func (l GPIOLines) Has(name string) bool { return l.Names[name] }

// ReadGPIOLines reads the GPIO chips devDir/gpiochip* (devDir is "/dev",
// or a fixture tree) through open (OpenGPIOChip, or a fake) and names
// their lines as periph's gpioioctl driver does: chips labelled
// "pinctrl-*" (the Raspberry Pi's header GPIOs) first, then by label; a
// chip of a name already read (a link to it) is skipped. A chip that
// cannot be opened or read is left out and its error joined to the
// returned one, as periph leaves it out (logging it); the lines of the
// others are still returned.
func ReadGPIOLines(devDir string, open func(path string) (GPIOChipDevice, error)) (GPIOLines, error) {
	paths, err := filepath.Glob(filepath.Join(devDir, "gpiochip*"))
	if err != nil {
		return GPIOLines{}, fmt.Errorf("hostcheck: %w", err)
	}
	sort.Strings(paths)
	type chipLines struct {
		chip  GPIOChipInfo
		lines []GPIOLineInfo
	}
	var chips []chipLines
	var errs []error
	for _, p := range paths {
		dev, err := open(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		chip, lines, err := readChip(dev)
		_ = dev.Close()
		if err != nil {
			errs = append(errs, fmt.Errorf("hostcheck: %s: %w", p, err))
			continue
		}
		if chip.Label == "" {
			chip.Label = chip.Name
		}
		chips = append(chips, chipLines{chip, lines})
	}
	sort.SliceStable(chips, func(i, j int) bool {
		pi, pj := strings.HasPrefix(chips[i].chip.Label, "pinctrl-"), strings.HasPrefix(chips[j].chip.Label, "pinctrl-")
		if pi != pj {
			return pi
		}
		return chips[i].chip.Label < chips[j].chip.Label
	})
	out := GPIOLines{Names: map[string]bool{}}
	seen := map[string]bool{}
	for _, c := range chips {
		if seen[c.chip.Name] {
			continue
		}
		seen[c.chip.Name] = true
		out.Chips = append(out.Chips, c.chip)
		for _, l := range c.lines {
			name := l.Name
			if name == "" || name == "_" || name == "-" {
				continue
			}
			if out.Names[name] {
				name = c.chip.Name + "-" + name
				if out.Names[name] {
					continue
				}
			}
			out.Names[name] = true
		}
	}
	return out, errors.Join(errs...)
}
