package watchqueue

import "testing"

// TestQueue: first in, first out; limit items however the queue was
// filled and emptied; Room after a take from a full queue; at most
// keptSlots kept once emptied; after Close, what was queued and then the
// end.
func TestQueue(t *testing.T) {
	const limit = 100
	q := New[int](limit)
	next, want := 0, 0
	fill := func() {
		for q.Put(next + 1) {
			next++
		}
	}
	drain := func(n int) {
		t.Helper()
		for range n {
			v, ok, _ := q.Take()
			if !ok {
				t.Fatalf("queue empty, want %d", want+1)
			}
			if want++; v != want {
				t.Fatalf("took %d, want %d", v, want)
			}
		}
	}
	for round := range 5 {
		fill()
		if held := next - want; held != limit {
			t.Fatalf("round %d: queue holds %d, want %d", round, held, limit)
		}
		select {
		case <-q.Room():
			t.Fatalf("round %d: room signalled before anything was taken", round)
		default:
		}
		drain(1 + round*20)
		select {
		case <-q.Room():
		default:
			t.Fatalf("round %d: taking from a full queue did not signal room", round)
		}
		if cap(q.items) > 2*limit {
			t.Fatalf("round %d: array of %d", round, cap(q.items))
		}
	}
	drain(next - want)
	if _, ok, closed := q.Take(); ok || closed {
		t.Fatalf("Take of an empty open queue: ok %v closed %v", ok, closed)
	}
	if cap(q.items) > keptSlots {
		t.Errorf("an emptied queue keeps %d slots, want at most %d", cap(q.items), keptSlots)
	}

	q.Put(1)
	q.Close()
	if q.Put(2) {
		t.Error("Put after Close succeeded")
	}
	if v, ok, _ := q.Take(); !ok || v != 1 {
		t.Errorf("Take after Close = %d %v, want the queued 1", v, ok)
	}
	if _, ok, closed := q.Take(); ok || !closed {
		t.Errorf("Take of an emptied closed queue: ok %v closed %v, want the end", ok, closed)
	}
}
