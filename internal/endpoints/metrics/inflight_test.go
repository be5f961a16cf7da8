package metrics

import (
	"testing"
	"time"
)

func TestWatermark(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var w watermark
	w.add(t0)
	w.add(t0)
	w.done()
	steps := []struct {
		name string
		at   int64
		want int64
	}{
		{"the high-water mark of this second", 1000, 2},
		{"the previous second's mark", 1001, 2},
		{"the current count once both are stale", 1005, 1},
	}
	for _, s := range steps {
		if got := w.value(s.at); got != s.want {
			t.Errorf("%s: value(%d) = %d, want %d", s.name, s.at, got, s.want)
		}
	}
	// A new second starts from the requests still running.
	w.add(time.Unix(1010, 0))
	w.done()
	if got := w.value(1010); got != 2 {
		t.Errorf("after a request in a new second: %d, want 2 (1 running + 1 new)", got)
	}
	if got := w.value(1011); got != 2 {
		t.Errorf("a second later: %d, want 2", got)
	}
	if got := w.value(1020); got != 1 {
		t.Errorf("much later: %d, want the 1 still running", got)
	}
}
