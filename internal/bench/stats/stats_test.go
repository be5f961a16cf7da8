package stats

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/bench/result"
)

func msDurations(ms ...int) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m) * time.Millisecond
	}
	return out
}

func TestPercentile(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	cases := []struct {
		name   string
		sorted []time.Duration
		q      float64
		want   time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one sample p50", msDurations(7), 0.5, 7 * time.Millisecond},
		{"one sample p99", msDurations(7), 0.99, 7 * time.Millisecond},
		{"1..100 p50", hundred, 0.50, 50 * time.Millisecond},
		{"1..100 p90", hundred, 0.90, 90 * time.Millisecond},
		{"1..100 p99", hundred, 0.99, 99 * time.Millisecond},
		{"1..100 max", hundred, 1, 100 * time.Millisecond},
		{"four p50 is lower middle", msDurations(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{"four p99 is the top", msDurations(1, 2, 3, 4), 0.99, 4 * time.Millisecond},
		{"tiny q is the minimum", msDurations(3, 5), 0.0001, 3 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Percentile(c.sorted, c.q); got != c.want {
				t.Errorf("Percentile(%v, %v) = %v, want %v", c.sorted, c.q, got, c.want)
			}
		})
	}
}

func TestLatency(t *testing.T) {
	cases := []struct {
		name    string
		samples []time.Duration
		want    *result.Latency
	}{
		{"empty", nil, nil},
		{"one", msDurations(4), &result.Latency{Count: 1, Mean: 4, P50: 4, P90: 4, P99: 4, Max: 4}},
		{"unsorted input", msDurations(10, 1, 4, 3, 2, 9, 8, 7, 6, 5),
			&result.Latency{Count: 10, Mean: 5.5, P50: 5, P90: 9, P99: 10, Max: 10}},
		{"sub-millisecond", []time.Duration{500 * time.Microsecond, 1500 * time.Microsecond},
			&result.Latency{Count: 2, Mean: 1, P50: 0.5, P90: 1.5, P99: 1.5, Max: 1.5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s Samples
			for _, d := range c.samples {
				s.Record(d)
			}
			if diff := cmp.Diff(c.want, s.Latency()); diff != "" {
				t.Errorf("Latency() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	var a, b Samples
	for _, d := range msDurations(1, 3, 5) {
		a.Record(d)
	}
	for _, d := range msDurations(2, 4) {
		b.Record(d)
	}
	a.Merge(&b)
	a.Merge(&a) // merging with itself is a no-op, not a deadlock
	if diff := cmp.Diff(msDurations(1, 2, 3, 4, 5), a.Sorted()); diff != "" {
		t.Errorf("merged samples (-want +got):\n%s", diff)
	}
	if b.Len() != 2 {
		t.Errorf("source changed by Merge: Len = %d, want 2", b.Len())
	}
}

func TestMedian(t *testing.T) {
	in := msDurations(9, 1, 5)
	if got, want := Median(in), 5*time.Millisecond; got != want {
		t.Errorf("Median = %v, want %v", got, want)
	}
	if diff := cmp.Diff(msDurations(9, 1, 5), in); diff != "" {
		t.Errorf("Median changed its input (-want +got):\n%s", diff)
	}
}

func TestConcurrentRecord(t *testing.T) {
	const workers, each = 8, 250
	var s Samples
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				s.Record(time.Duration(w*each + i))
			}
		})
	}
	wg.Wait()
	got := s.Sorted()
	if len(got) != workers*each {
		t.Fatalf("Len = %d, want %d", len(got), workers*each)
	}
	for i, d := range got {
		if d != time.Duration(i) {
			t.Fatalf("sample %d = %v, want %v: a Record was lost or duplicated", i, d, time.Duration(i))
		}
	}
}
