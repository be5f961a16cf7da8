package storage

import (
	"context"

	"k8s.io/apimachinery/pkg/watch"
)

// EventSource returns how a consumer takes a watch's events: next waits
// for the next one, tryNext takes one only if it is ready; both report
// false once the watch is over (or ctx ends, for next). A watch the
// consumer can drive (PulledWatch, the watch cache's) is pulled in the
// caller's goroutine, sparing it a goroutine of its own; any other is
// read from ResultChan.
func EventSource(w watch.Interface) (next, tryNext func(context.Context) (watch.Event, bool)) {
	if p, ok := w.(PulledWatch); ok {
		return p.Next, p.TryNext
	}
	ch := w.ResultChan()
	next = func(ctx context.Context) (watch.Event, bool) {
		select {
		case <-ctx.Done():
			return watch.Event{}, false
		case event, ok := <-ch:
			return event, ok
		}
	}
	tryNext = func(context.Context) (watch.Event, bool) {
		select {
		case event, ok := <-ch:
			return event, ok
		default:
			return watch.Event{}, false
		}
	}
	return next, tryNext
}
