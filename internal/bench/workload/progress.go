package workload

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// progressInterval is how often the progress line is redrawn.
const progressInterval = 250 * time.Millisecond

// Progress draws one line, rewritten in place with '\r', while a
// workload runs: its name, done/total, ops/s and errors. A disabled
// Progress (not a terminal) draws nothing and starts no goroutine.
type Progress struct {
	w       io.Writer
	enabled bool

	done, errs atomic.Int64

	mu      sync.Mutex // guards the fields below
	name    string
	total   int64
	start   time.Time
	stop    chan struct{}
	stopped chan struct{}
}

// NewProgress returns a Progress writing to w when enabled.
func NewProgress(w io.Writer, enabled bool) *Progress {
	return &Progress{w: w, enabled: enabled && w != nil}
}

// Begin starts a line for a workload of total operations (0: unknown).
func (p *Progress) Begin(name string, total int64) {
	p.End()
	p.done.Store(0)
	p.errs.Store(0)
	if !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.name, p.total, p.start = name, total, time.Now()
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go p.loop(p.stop, p.stopped)
}

// Add counts one operation, failed when err is not nil.
func (p *Progress) Add(err error) {
	p.done.Add(1)
	if err != nil {
		p.errs.Add(1)
	}
}

// End stops drawing and clears the line.
func (p *Progress) End() {
	p.mu.Lock()
	stop, stopped := p.stop, p.stopped
	p.stop, p.stopped = nil, nil
	p.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-stopped
	fmt.Fprint(p.w, "\r\033[K")
}

func (p *Progress) loop(stop, stopped chan struct{}) {
	defer close(stopped)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			fmt.Fprint(p.w, "\r\033[K"+p.line(time.Now()))
		}
	}
}

// line is the text of the progress line at now.
func (p *Progress) line(now time.Time) string {
	p.mu.Lock()
	name, total, start := p.name, p.total, p.start
	p.mu.Unlock()
	return progressLine(name, p.done.Load(), total, p.errs.Load(), now.Sub(start))
}

func progressLine(name string, done, total, errs int64, elapsed time.Duration) string {
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
	}
	of := ""
	if total > 0 {
		of = fmt.Sprintf("/%d", total)
	}
	return fmt.Sprintf("%s: %d%s ops, %.0f ops/s, %d errors", name, done, of, rate, errs)
}
