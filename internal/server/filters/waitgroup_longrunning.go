package filters

import (
	"context"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// minWatchStopRate is upstream's floor on how many watches per second a
// paced shutdown ends: the spread exists to soften the clients' reconnect
// storm, not to make a shutdown slow.
const minWatchStopRate = 200

// longRunningSet is the cancel functions of the long-running requests in
// progress.
type longRunningSet struct {
	mu       sync.Mutex
	next     uint64
	cancels  map[uint64]context.CancelFunc
	stopping bool // a paced stop began: new ones end at once
}

// track adds cancel and returns its removal. Once a paced stop has begun, a
// new long-running request is ended at once.
func (s *longRunningSet) track(cancel context.CancelFunc) (untrack func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		cancel()
		return func() {}
	}
	if s.cancels == nil {
		s.cancels = map[uint64]context.CancelFunc{}
	}
	id := s.next
	s.next++
	s.cancels[id] = cancel
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.cancels, id)
	}
}

// beginStop marks the set stopping and returns the requests in progress.
func (s *longRunningSet) beginStop() []context.CancelFunc {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopping = true
	out := make([]context.CancelFunc, 0, len(s.cancels))
	for _, c := range s.cancels {
		out = append(out, c)
	}
	return out
}

// IsDraining reports whether Close was called.
func (g *RequestWaitGroup) IsDraining() bool { return g.closed.Load() }

// StopLongRunningPaced ends the long-running requests (watches) one after
// another, spread over grace at no fewer than 200 a second, as
// kube-apiserver does with --shutdown-watch-termination-grace-period, so
// that their clients do not all reconnect at once. It returns when every
// one was asked to end, or when ctx ends; then, or at return, it ends
// whatever is left as StopLongRunning does.
func (g *RequestWaitGroup) StopLongRunningPaced(ctx context.Context, clk clock.Clock, grace time.Duration) {
	defer g.StopLongRunning()
	cancels := g.long.beginStop()
	if len(cancels) == 0 || grace <= 0 {
		return
	}
	rate := max(float64(len(cancels))/grace.Seconds(), minWatchStopRate)
	interval := time.Duration(float64(time.Second) / rate)
	for i, cancel := range cancels {
		if i > 0 {
			select {
			case <-clk.After(interval):
			case <-ctx.Done():
				for _, rest := range cancels[i:] {
					rest()
				}
				return
			}
		}
		cancel()
	}
}
