package daemon

import (
	"io"
	"log/slog"

	"github.com/sabot-table/sabot/cmd/internal/config"
)

// newLogger returns the daemon's logger: slog text (for terminals and
// journald) or JSON lines, at the configured level.
func newLogger(c config.LogConfig, w io.Writer) *slog.Logger {
	var lvl slog.Level
	switch c.Level {
	case "debug":
		lvl = slog.LevelDebug
	case "warn":
		lvl = slog.LevelWarn
	case "error":
		lvl = slog.LevelError
	default:
		lvl = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lvl}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
