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

// Remove does nothing.
func (p *PTY) Remove() error { return nil }

// MakeRaw fails on this system.
func MakeRaw(*os.File) error { return errors.New("sim: raw mode needs Linux") }
