package main

import (
	"fmt"
	"io"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// newLogger returns etcd's logger: JSON lines on w at level and above,
// except the errors etcd logs on every clean start and stop, which are
// demoted to debug so that an error in a member's log means something.
func newLogger(level string, w io.Writer) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	out := zapcore.Lock(zapcore.AddSync(w))
	core := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), out, lvl)
	return zap.New(quietCore{core}, zap.ErrorOutput(out), zap.AddCaller()), nil
}

// benignMessages are errors etcd logs when nothing is wrong: its listeners
// closing on a clean stop, and its storage-version check before the first
// term.
var benignMessages = map[string]bool{
	"setting up serving from embedded etcd failed.": true,
	"failed to update storage version":              true,
}

// quietCore demotes benignMessages to debug.
type quietCore struct{ zapcore.Core }

func (c quietCore) With(fields []zapcore.Field) zapcore.Core {
	return quietCore{c.Core.With(fields)}
}

func (c quietCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if benignMessages[e.Message] {
		e.Level = zapcore.DebugLevel
	}
	return c.Core.Check(e, ce)
}
