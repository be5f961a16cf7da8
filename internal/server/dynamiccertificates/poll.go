package dynamiccertificates

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"os"
	"time"
)

// DefaultInterval is how often files are re-read when the caller gives no
// interval: upstream resyncs its file watches every minute.
const DefaultInterval = time.Minute

// digest identifies the content of a set of files, so a poll that finds
// nothing new costs a read and a hash, and the last content (a private key
// among it) need not be kept twice.
type digest [sha256.Size]byte

// readFiles returns the content of paths and a digest over all of it.
func readFiles(paths ...string) ([][]byte, digest, error) {
	h := sha256.New()
	contents := make([][]byte, len(paths))
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, digest{}, err
		}
		contents[i] = b
		// The length keeps "ab"+"c" apart from "a"+"bc".
		h.Write([]byte{byte(len(b) >> 24), byte(len(b) >> 16), byte(len(b) >> 8), byte(len(b))})
		h.Write(b)
	}
	var d digest
	h.Sum(d[:0])
	return contents, d, nil
}

// every calls fn each interval until ctx ends.
func every(ctx context.Context, interval time.Duration, fn func()) {
	if interval <= 0 {
		interval = DefaultInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

// orDiscard returns logger, or a logger that drops everything.
func orDiscard(logger *slog.Logger) *slog.Logger {
	if logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return logger
}
