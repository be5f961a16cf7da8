// Package logbackend is the audit backend of --audit-log-path: one JSON
// audit.k8s.io/v1 Event per line, in a file rotated by size with
// lumberjack (--audit-log-maxsize, -maxage, -maxbackup) or on stdout.
package logbackend

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

// New returns a backend writing to path, "-" meaning stdout. With
// maxSizeMB > 0 the file is rotated when it would grow past that many
// megabytes, keeping at most maxBackups old files (0: all) for at most
// maxAgeDays days (0: forever); with 0 it grows without bound, as upstream.
// The file and its directory are created private (0600, 0700).
func New(path string, maxSizeMB, maxAgeDays, maxBackups int) (audit.Backend, error) {
	var errs []error
	if maxAgeDays < 0 {
		errs = append(errs, fmt.Errorf("--audit-log-maxage %v can't be a negative number", maxAgeDays))
	}
	if maxBackups < 0 {
		errs = append(errs, fmt.Errorf("--audit-log-maxbackup %v can't be a negative number", maxBackups))
	}
	if maxSizeMB < 0 {
		errs = append(errs, fmt.Errorf("--audit-log-maxsize %v can't be a negative number", maxSizeMB))
	}
	if path == "" {
		errs = append(errs, errors.New("--audit-log-path is empty"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if path == "-" {
		return &backend{out: os.Stdout}, nil
	}
	if err := ensureFile(path); err != nil {
		return nil, fmt.Errorf("ensureLogFile: %w", err)
	}
	if maxSizeMB == 0 {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, err
		}
		return &backend{out: f, closer: f}, nil
	}
	l := &lumberjack.Logger{Filename: path, MaxSize: maxSizeMB, MaxAge: maxAgeDays, MaxBackups: maxBackups}
	return &backend{out: l, closer: l}, nil
}

// ensureFile creates the log file up front so that a bad path fails at
// start rather than on the first request.
func ensureFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

type backend struct {
	mu     sync.Mutex
	out    io.Writer
	closer io.Closer // nil for stdout
	closed bool
}

var _ audit.Backend = (*backend)(nil)

// ProcessEvents writes each event as one line; a line is written whole or
// not at all from the caller's view, and lines of concurrent requests do
// not interleave.
func (b *backend) ProcessEvents(events ...*auditv1.Event) bool {
	ok := true
	for _, ev := range events {
		line, err := encode(ev)
		if err != nil {
			ok = false
			continue
		}
		b.mu.Lock()
		if b.closed {
			ok = false
		} else if _, err := b.out.Write(line); err != nil {
			ok = false
		}
		b.mu.Unlock()
	}
	return ok
}

// encode marshals ev with its type set, newline-terminated.
func encode(ev *auditv1.Event) ([]byte, error) {
	e := *ev
	e.APIVersion = auditv1.SchemeGroupVersion.String()
	e.Kind = "Event"
	line, err := json.Marshal(&e)
	if err != nil {
		return nil, err
	}
	return append(line, '\n'), nil
}

// Run does nothing: writes happen on the caller's goroutine.
func (b *backend) Run(<-chan struct{}) error { return nil }

// Shutdown closes the file; later events are refused.
func (b *backend) Shutdown() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	if b.closer != nil {
		_ = b.closer.Close()
	}
}
