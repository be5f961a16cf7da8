package cacher

import (
	"fmt"
	"testing"
)

// TestRingKeepsTheLastCapacityEvents: whatever its array has grown to, the
// ring holds the last capacity events, oldest first, and start is the
// revision of the last one dropped.
func TestRingKeepsTheLastCapacityEvents(t *testing.T) {
	for _, capacity := range []int{1, 3, 16, 17, 40} {
		for _, pushes := range []int{0, 1, capacity - 1, capacity, capacity + 1, 3*capacity + 5} {
			r := newRing(capacity)
			r.reset(0)
			for rv := 1; rv <= pushes; rv++ {
				r.push(&event{rv: uint64(rv)})
			}
			var got []uint64
			for _, ev := range r.since(0, func(*event) bool { return true }) {
				got = append(got, ev.rv)
			}
			var want []uint64
			for rv := max(1, pushes-capacity+1); rv <= pushes; rv++ {
				want = append(want, uint64(rv))
			}
			wantStart := uint64(max(0, pushes-capacity))
			if fmt.Sprint(got) != fmt.Sprint(want) || r.start != wantStart {
				t.Errorf("capacity %d, %d pushes: events %v start %d, want %v start %d", capacity, pushes, got, r.start, want, wantStart)
			}
			if len(r.events) > capacity {
				t.Errorf("capacity %d, %d pushes: array of %d", capacity, pushes, len(r.events))
			}
		}
	}
}
