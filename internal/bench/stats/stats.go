// Package stats collects the bench tool's latency samples and reduces them
// to percentiles.
//
// Samples are kept exactly (8 bytes each) and sorted once at the end, so
// the percentiles have no approximation error: a run of 10,000 objects or
// 600,000 watch events costs a few megabytes, which a load generator can
// afford, and exact numbers are easier to trust than a histogram's bounds.
package stats

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

// Samples is a set of durations; it is safe for concurrent use.
type Samples struct {
	mu sync.Mutex
	d  []time.Duration
}

// Record adds one duration.
func (s *Samples) Record(d time.Duration) {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
}

// Merge adds every sample of o to s.
func (s *Samples) Merge(o *Samples) {
	if o == s {
		return
	}
	o.mu.Lock()
	other := slices.Clone(o.d)
	o.mu.Unlock()
	s.mu.Lock()
	s.d = append(s.d, other...)
	s.mu.Unlock()
}

// Len is the number of samples.
func (s *Samples) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.d)
}

// Sorted returns a sorted copy of the samples.
func (s *Samples) Sorted() []time.Duration {
	s.mu.Lock()
	d := slices.Clone(s.d)
	s.mu.Unlock()
	slices.Sort(d)
	return d
}

// Latency summarizes the samples in milliseconds; nil without samples, so
// a phase that measured nothing carries no distribution.
func (s *Samples) Latency() *result.Latency {
	return Summarize(s.Sorted())
}

// Summarize reduces sorted durations to a result.Latency (nil if empty).
func Summarize(sorted []time.Duration) *result.Latency {
	if len(sorted) == 0 {
		return nil
	}
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	return &result.Latency{
		Count: int64(len(sorted)),
		Mean:  ms(sum / time.Duration(len(sorted))),
		P50:   ms(Percentile(sorted, 0.50)),
		P90:   ms(Percentile(sorted, 0.90)),
		P99:   ms(Percentile(sorted, 0.99)),
		Max:   ms(sorted[len(sorted)-1]),
	}
}

// Percentile returns the q-quantile (0 < q ≤ 1) of sorted durations by
// the nearest-rank method: the smallest sample with at least q of all
// samples at or below it. It is always one of the samples, never an
// interpolation, and 0 for no samples.
func Percentile(sorted []time.Duration, q float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(q * float64(n)))
	rank = max(1, min(rank, n))
	return sorted[rank-1]
}

// Median returns the middle of durations (the lower middle for an even
// count), without changing ds.
func Median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return Percentile(s, 0.5)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
