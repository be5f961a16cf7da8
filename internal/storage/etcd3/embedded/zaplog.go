package embedded

import (
	"context"
	"log/slog"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// newZapLogger returns a zap logger that writes entries at min or above to
// logger, so etcd's logs join kapi's instead of going to stderr as JSON.
func newZapLogger(logger *slog.Logger, min zapcore.Level) *zap.Logger {
	return zap.New(&slogCore{logger: logger, min: min})
}

// slogCore is a zapcore.Core backed by a slog.Logger.
type slogCore struct {
	logger *slog.Logger
	min    zapcore.Level
	fields []zapcore.Field
}

func (c *slogCore) Enabled(l zapcore.Level) bool { return l >= c.min }

func (c *slogCore) With(fields []zapcore.Field) zapcore.Core {
	clone := *c
	clone.fields = append(append([]zapcore.Field(nil), c.fields...), fields...)
	return &clone
}

func (c *slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range c.fields {
		f.AddTo(enc)
	}
	for _, f := range fields {
		f.AddTo(enc)
	}
	attrs := make([]slog.Attr, 0, len(enc.Fields)+1)
	if e.LoggerName != "" {
		attrs = append(attrs, slog.String("logger", e.LoggerName))
	}
	for k, v := range enc.Fields {
		attrs = append(attrs, slog.Any(k, v))
	}
	level := slogLevel(e.Level)
	if benignEtcdMessages[e.Message] {
		level = slog.LevelDebug
	}
	c.logger.LogAttrs(context.Background(), level, e.Message, attrs...)
	return nil
}

// benignEtcdMessages are errors a healthy single-member etcd logs on every
// start (its storage-version detection before the first term) and every
// clean stop (its listeners closing); shown as errors they would alarm users
// of `kapi serve` for nothing.
var benignEtcdMessages = map[string]bool{
	"failed to update storage version":              true,
	"setting up serving from embedded etcd failed.": true,
}

func (c *slogCore) Sync() error { return nil }

func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l <= zapcore.DebugLevel:
		return slog.LevelDebug
	case l == zapcore.InfoLevel:
		return slog.LevelInfo
	case l == zapcore.WarnLevel:
		return slog.LevelWarn
	default:
		return slog.LevelError
	}
}
