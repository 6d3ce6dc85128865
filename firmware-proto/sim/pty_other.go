//go:build !linux

package sim

import (
	"context"
	"errors"
	"io"
	"os"
)

// PTY is a Link on a pseudo-terminal; only Linux is supported.
type PTY struct {
	Path   string
	OnOpen func(device string)
}

// NewPTY returns a PTY link at path.
func NewPTY(path string) *PTY { return &PTY{Path: path} }

// Device returns "".
func (p *PTY) Device() string { return "" }

// Open fails: pseudo-terminals are supported on Linux only.
func (p *PTY) Open(context.Context) (io.ReadWriteCloser, error) {
	return nil, errors.New("sim: pseudo-terminal links need Linux")
}

// CheckLinkPath reports whether path may be used as a PTY's Path: it must
// not exist or be a symbolic link.
func CheckLinkPath(path string) error {
	fi, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return errors.New("sim: link " + path + ": exists and is not a symbolic link; refusing to replace it")
	}
	return nil
}

// Remove does nothing.
func (p *PTY) Remove() error { return nil }

// MakeRaw fails on this system.
func MakeRaw(*os.File) error { return errors.New("sim: raw mode needs Linux") }
