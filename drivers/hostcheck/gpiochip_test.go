package hostcheck

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// nameField is s as a NUL-padded GPIO_MAX_NAME_SIZE field; junk is put
// after the NUL, which the parsers must not read.
func nameField(s, junk string) []byte {
	b := make([]byte, gpioNameSize)
	copy(b, s)
	if junk != "" {
		copy(b[len(s)+1:], junk)
	}
	return b
}

// chipInfoBytes is a struct gpiochip_info as the kernel writes it.
func chipInfoBytes(name, label string, lines uint32) []byte {
	b := append(nameField(name, ""), nameField(label, "")...)
	return binary.NativeEndian.AppendUint32(b, lines)
}

// lineInfoBytes is a struct gpio_v2_line_info with the name, consumer
// and offset set, the rest (flags, attributes) junk.
func lineInfoBytes(name, consumer string, offset uint32) []byte {
	b := append(nameField(name, ""), nameField(consumer, "")...)
	b = binary.NativeEndian.AppendUint32(b, offset)
	for len(b) < lineInfoSize {
		b = append(b, 0xa5)
	}
	return b
}

// The sizes are those of x/sys's copies of the kernel structs and of the
// sizes encoded in the ioctl request numbers (bits 16-29, _IOC_SIZE).
func TestGPIOStructSizes(t *testing.T) {
	if n := unsafe.Sizeof(unix.GPIOChipInfo{}); n != chipInfoSize {
		t.Errorf("unix.GPIOChipInfo is %d bytes, chipInfoSize %d", n, chipInfoSize)
	}
	if n := unsafe.Sizeof(unix.GPIOV2LineInfo{}); n != lineInfoSize {
		t.Errorf("unix.GPIOV2LineInfo is %d bytes, lineInfoSize %d", n, lineInfoSize)
	}
	if n := unsafe.Offsetof(unix.GPIOV2LineInfo{}.Offset); n != lineOffsetAt {
		t.Errorf("gpio_v2_line_info's offset is at %d, lineOffsetAt %d", n, lineOffsetAt)
	}
	iocSize := func(req uint) int { return int(req>>16) & 0x3fff }
	if n := iocSize(unix.GPIO_GET_CHIPINFO_IOCTL); n != chipInfoSize {
		t.Errorf("GPIO_GET_CHIPINFO_IOCTL takes %d bytes", n)
	}
	if n := iocSize(unix.GPIO_V2_GET_LINEINFO_IOCTL); n != lineInfoSize {
		t.Errorf("GPIO_V2_GET_LINEINFO_IOCTL takes %d bytes", n)
	}
}

func TestParseGPIOChipInfo(t *testing.T) {
	// A Pi 4's gpiochip0, with junk after the NULs.
	b := append(append(nameField("gpiochip0", "xx"), nameField("pinctrl-bcm2711", "yy")...), 0, 0, 0, 0)
	binary.NativeEndian.PutUint32(b[64:], 58)
	got, err := ParseGPIOChipInfo(b)
	if want := (GPIOChipInfo{Name: "gpiochip0", Label: "pinctrl-bcm2711", Lines: 58}); err != nil || got != want {
		t.Errorf("ParseGPIOChipInfo = %+v, %v; want %+v", got, err, want)
	}
	// The same bytes as x/sys's struct holds them.
	info := unix.GPIOChipInfo{Lines: 54}
	copy(info.Name[:], "gpiochip4")
	copy(info.Label[:], "pinctrl-rp1")
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&info)), unsafe.Sizeof(info))
	got, err = ParseGPIOChipInfo(raw)
	if want := (GPIOChipInfo{Name: "gpiochip4", Label: "pinctrl-rp1", Lines: 54}); err != nil || got != want {
		t.Errorf("ParseGPIOChipInfo(unix.GPIOChipInfo) = %+v, %v; want %+v", got, err, want)
	}
	// A full-length name has no NUL.
	full := strings.Repeat("n", gpioNameSize)
	if got, err := ParseGPIOChipInfo(chipInfoBytes(full, "", 0)); err != nil || got.Name != full || got.Label != "" {
		t.Errorf("32-byte name: %+v, %v", got, err)
	}
	for _, n := range []int{0, chipInfoSize - 1, chipInfoSize + 1} {
		if _, err := ParseGPIOChipInfo(make([]byte, n)); err == nil || !strings.HasPrefix(err.Error(), "hostcheck: ") {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
}

func TestParseGPIOLineInfo(t *testing.T) {
	b := lineInfoBytes("GPIO17", "sabotd@812", 17)
	copy(b[6+1:], "junk") // after the name's NUL
	got, err := ParseGPIOLineInfo(b)
	if want := (GPIOLineInfo{Name: "GPIO17", Consumer: "sabotd@812", Offset: 17}); err != nil || got != want {
		t.Errorf("ParseGPIOLineInfo = %+v, %v; want %+v", got, err, want)
	}
	info := unix.GPIOV2LineInfo{Offset: 3, Flags: 1 << 2, Num_attrs: 1}
	copy(info.Name[:], "GPIO3")
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&info)), unsafe.Sizeof(info))
	got, err = ParseGPIOLineInfo(raw)
	if want := (GPIOLineInfo{Name: "GPIO3", Offset: 3}); err != nil || got != want {
		t.Errorf("ParseGPIOLineInfo(unix.GPIOV2LineInfo) = %+v, %v; want %+v", got, err, want)
	}
	if _, err := ParseGPIOLineInfo(make([]byte, 72)); err == nil { // the v1 gpioline_info
		t.Error("a 72-byte gpioline_info parsed")
	}
}

// fakeChip answers the two info ioctls as the kernel does, from a chip
// description.
type fakeChip struct {
	name, label string
	lines       []string
	failLine    int // the offset whose line info fails; -1 none
	closed      *int
}

func (c *fakeChip) Ioctl(req uint, arg []byte) error {
	switch req {
	case unix.GPIO_GET_CHIPINFO_IOCTL:
		if len(arg) != chipInfoSize {
			return unix.EFAULT
		}
		copy(arg, chipInfoBytes(c.name, c.label, uint32(len(c.lines))))
	case unix.GPIO_V2_GET_LINEINFO_IOCTL:
		if len(arg) != lineInfoSize {
			return unix.EFAULT
		}
		off := binary.NativeEndian.Uint32(arg[lineOffsetAt:])
		if int(off) >= len(c.lines) || slices.ContainsFunc(arg[:lineOffsetAt], func(b byte) bool { return b != 0 }) {
			return unix.EINVAL // asked as sent: zeroed but for the offset
		}
		if int(off) == c.failLine {
			return unix.EIO
		}
		copy(arg, lineInfoBytes(c.lines[off], "", off))
	default:
		return unix.ENOTTY
	}
	return nil
}

func (c *fakeChip) Close() error {
	*c.closed++
	return nil
}

func TestReadGPIOLines(t *testing.T) {
	dev := t.TempDir()
	closed := 0
	pi := func() *fakeChip {
		return &fakeChip{name: "gpiochip1", label: "pinctrl-bcm2711", lines: []string{"ID_SDA", "ID_SCL", "GPIO2", "GPIO17", "-", "", "_"}, failLine: -1, closed: &closed}
	}
	chips := map[string]*fakeChip{
		// Sorts before pinctrl-* by label, but is read after it: its
		// GPIO17 is the one renamed.
		"gpiochip0": {name: "gpiochip0", label: "brcmvirt-gpio", lines: []string{"BT_ON", "GPIO17", "BT_ON", "BT_ON"}, failLine: -1, closed: &closed},
		"gpiochip1": pi(),
		"gpiochip4": pi(), // a link to gpiochip1 (a Pi 5's gpiochip4 is gpiochip0)
		"gpiochip5": {name: "gpiochip5", label: "", lines: []string{"EXP0"}, failLine: -1, closed: &closed},
		"gpiochip6": {name: "gpiochip6", label: "broken", lines: []string{"A", "B"}, failLine: 1, closed: &closed},
	}
	for n := range chips {
		if err := os.WriteFile(filepath.Join(dev, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	denied := filepath.Join(dev, "gpiochip7")
	if err := os.WriteFile(denied, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	open := func(p string) (GPIOChipDevice, error) {
		if c, ok := chips[filepath.Base(p)]; ok {
			return c, nil
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}
	}

	got, err := ReadGPIOLines(dev, open)
	if !errors.Is(err, fs.ErrPermission) || !errors.Is(err, unix.EIO) ||
		!strings.Contains(err.Error(), "gpiochip6: GPIO_V2_GET_LINEINFO_IOCTL line 1: ") || !strings.Contains(err.Error(), denied) {
		t.Errorf("errors: %v; want gpiochip7's open and gpiochip6's line 1", err)
	}
	var names []string
	for n := range got.Names {
		if got.Has(n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	want := []string{"BT_ON", "EXP0", "GPIO17", "GPIO2", "ID_SCL", "ID_SDA", "gpiochip0-BT_ON", "gpiochip0-GPIO17"}
	if !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	var order []string
	for _, c := range got.Chips {
		order = append(order, c.Name+"/"+c.Label)
	}
	if w := []string{"gpiochip1/pinctrl-bcm2711", "gpiochip0/brcmvirt-gpio", "gpiochip5/gpiochip5"}; !slices.Equal(order, w) {
		t.Errorf("chips %q, want %q", order, w)
	}
	if closed != 5 {
		t.Errorf("%d chips closed, want the 5 opened", closed)
	}

	if got, err := ReadGPIOLines(t.TempDir(), open); err != nil || len(got.Chips) != 0 || got.Has("GPIO17") {
		t.Errorf("no chips: %+v, %v", got, err)
	}
}

// The real ioctl path on a file that is no GPIO chip: the kernel refuses
// the request (ENOTTY), and the error names it.
func TestOpenGPIOChipNotAChip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gpiochip0")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dev, err := OpenGPIOChip(p)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = ReadGPIOChip(dev)
	if !errors.Is(err, unix.ENOTTY) || !strings.HasPrefix(err.Error(), "hostcheck: GPIO_GET_CHIPINFO_IOCTL: ") {
		t.Errorf("ReadGPIOChip(regular file): %v", err)
	}
	if err := dev.Close(); err != nil {
		t.Error(err)
	}
	if _, err := OpenGPIOChip(filepath.Join(t.TempDir(), "none")); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "hostcheck: ") {
		t.Errorf("OpenGPIOChip(missing): %v", err)
	}
	_, err = ReadGPIOLines(filepath.Dir(p), OpenGPIOChip)
	if !errors.Is(err, unix.ENOTTY) || !strings.Contains(err.Error(), "hostcheck: "+p+": ") {
		t.Errorf("ReadGPIOLines on a regular file: %v", err)
	}
}
