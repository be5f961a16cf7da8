// Package memlimit sets the Go runtime's soft memory limit of the kapi
// process (the limit GOMEMLIMIT sets): a fixed one, none, or one that
// follows the data the server holds.
//
// Most of a kapi server's heap is its data: the watch caches and the
// informers of its controllers hold every object. Go's default collector
// lets the heap grow to twice the live heap before collecting, so a server
// holding 500 MB of objects peaks near 1 GB. The automatic limit keeps the
// headroom at half the live heap (at least minHeadroom, so a small server
// does not collect more often than it does today), re-derived after every
// collection as the data grows and shrinks.
//
// The limit is process-wide: only the kapi commands set it, never a server
// started in-process by a test.
package memlimit

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/resource"
)

// minHeadroom is the least room the automatic limit leaves above the live
// heap. An idle server's live heap is about 20 MB; below 64 MiB of
// headroom the collector would run more often than with GOGC=100 alone.
const minHeadroom = 64 << 20

// ceilingFraction is the share of a cgroup memory limit the automatic
// limit may reach, leaving the rest for memory the runtime does not count
// (the embedded etcd's memory-mapped database, thread stacks, the page
// cache charged to the cgroup).
const ceilingFraction = 0.9

type mode int

const (
	modeAuto mode = iota
	modeOff
	modeFixed
)

// Setting is a parsed --memory-limit value.
type Setting struct {
	mode  mode
	bytes int64
}

// Auto is the default: a limit that follows the live heap.
var Auto = Setting{mode: modeAuto}

// Parse reads "auto", "off", or a quantity such as 512Mi or 2G.
func Parse(s string) (Setting, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return Auto, nil
	case "off", "none":
		return Setting{mode: modeOff}, nil
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return Setting{}, fmt.Errorf("%q is neither auto, off nor a quantity such as 512Mi", s)
	}
	n, ok := q.AsInt64()
	if !ok || n <= 0 {
		return Setting{}, fmt.Errorf("%q must be a positive number of bytes", s)
	}
	return Setting{mode: modeFixed, bytes: n}, nil
}

// String is the flag's value as Parse reads it back.
func (s Setting) String() string {
	switch s.mode {
	case modeOff:
		return "off"
	case modeFixed:
		return resource.NewQuantity(s.bytes, resource.BinarySI).String()
	}
	return "auto"
}

// Bounds reports whether Start with s sets a soft memory limit of its
// own, one that follows the data (auto) or the operator's quantity: auto
// leaves a GOMEMLIMIT environment variable in force, whose size kapi does
// not know.
func (s Setting) Bounds() bool {
	switch s.mode {
	case modeFixed:
		return true
	case modeAuto:
		return os.Getenv("GOMEMLIMIT") == ""
	}
	return false
}

// autoLimit is the limit for a live heap: half of it again as headroom,
// at least minHeadroom, and never above ceiling when there is one.
func autoLimit(live, ceiling uint64) uint64 {
	limit := live + max(live/2, minHeadroom)
	if ceiling > 0 && limit > ceiling {
		limit = ceiling
	}
	return limit
}

// Start applies s to the process and returns a function that puts back the
// limit it found. With auto, a limit given by the GOMEMLIMIT environment
// variable is left as it is: the operator chose it.
func Start(s Setting, logger *slog.Logger) (stop func()) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	prev := debug.SetMemoryLimit(-1)
	restore := func() { debug.SetMemoryLimit(prev) }
	switch s.mode {
	case modeOff:
		debug.SetMemoryLimit(math.MaxInt64)
		return restore
	case modeFixed:
		debug.SetMemoryLimit(s.bytes)
		logger.Debug("memory limit set", "bytes", s.bytes)
		return restore
	}
	if env := os.Getenv("GOMEMLIMIT"); env != "" {
		logger.Info("GOMEMLIMIT is set; --memory-limit=auto leaves it", "GOMEMLIMIT", env)
		return func() {}
	}
	f := &follower{ceiling: cgroupCeiling(os.DirFS("/"), logger)}
	f.sample[0].Name = liveHeapMetric
	f.update()
	f.arm()
	return func() {
		f.stopped.Store(true)
		restore()
	}
}

const liveHeapMetric = "/gc/heap/live:bytes"

// follower re-derives the limit after every garbage collection. It runs on
// the runtime's cleanup goroutine, through a sentinel object whose cleanup
// arms the next one, so it owns no goroutine of its own.
type follower struct {
	ceiling uint64
	stopped atomic.Bool
	sample  [1]metrics.Sample // used by the cleanup goroutine only
}

// sentinel is garbage as soon as it is made; it has a pointer so that it
// is not a tiny allocation, whose cleanups may never run.
type sentinel struct{ _ *byte }

func (f *follower) arm() {
	runtime.AddCleanup(new(sentinel), func(f *follower) {
		if f.stopped.Load() {
			return
		}
		f.update()
		f.arm()
	}, f)
}

func (f *follower) update() {
	metrics.Read(f.sample[:])
	if f.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	debug.SetMemoryLimit(int64(autoLimit(f.sample[0].Value.Uint64(), f.ceiling)))
}
