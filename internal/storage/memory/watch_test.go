package memory

import (
	"context"
	"fmt"
	"testing"
)

// TestWatchQueue: a watch queues as many responses as a channel of the
// replay plus watchBuf would; one more closes it, after what was queued
// is read.
func TestWatchQueue(t *testing.T) {
	ctx := t.Context()
	keys := 0
	put := func(s *kv, n int) {
		for range n {
			keys++
			if _, _, ok, err := s.Put(ctx, fmt.Sprintf("/k/%d", keys), []byte("v"), 0); !ok || err != nil {
				t.Fatalf("put %d: %v %v", keys, ok, err)
			}
		}
	}
	read := func(w *memWatcher) int {
		n := 0
		for {
			short, cancel := context.WithCancel(ctx)
			cancel() // what is queued is returned without waiting
			if _, ok := w.Next(short); !ok {
				return n
			}
			n++
		}
	}
	s := newKV(100, 3)
	put(s, 2) // revisions 1 and 2, replayed
	ws, err := s.Watch(ctx, "/k/", "\x00", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	w := ws.(*memWatcher)
	put(s, 3)
	if got := read(w); got != 5 {
		t.Errorf("read %d responses, want the 2 replayed and 3 more", got)
	}
	put(s, 6) // one more than fits
	if got := read(w); got != 5 {
		t.Errorf("read %d responses of an overflowed watch, want the 5 queued", got)
	}
	if _, ok, closed := w.queue.Take(); ok || !closed {
		t.Error("an overflowed watch is still open")
	}
}
