package inprocess

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
)

// eventStream hands a storage watch's events to an informer, each object
// made the informer's (forInformer). One goroutine moves the events: it
// pulls them from a watch cache's watch, which then needs none of its own.
type eventStream struct {
	source  watch.Interface
	convert func(runtime.Object) (runtime.Object, error)
	ctx     context.Context
	cancel  context.CancelFunc
	result  chan watch.Event
	done    chan struct{}
	stop    sync.Once
}

func newEventStream(ctx context.Context, cancel context.CancelFunc, source watch.Interface, convert func(runtime.Object) (runtime.Object, error)) *eventStream {
	s := &eventStream{source: source, convert: convert, ctx: ctx, cancel: cancel,
		result: make(chan watch.Event), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *eventStream) ResultChan() <-chan watch.Event { return s.result }

// Stop ends the watch and waits for its goroutine.
func (s *eventStream) Stop() {
	s.stop.Do(func() {
		s.cancel()
		s.source.Stop()
	})
	<-s.done
}

func (s *eventStream) run() {
	defer close(s.done)
	defer close(s.result)
	defer s.source.Stop()
	next, _ := storage.EventSource(s.source)
	for {
		ev, ok := next(s.ctx)
		if !ok {
			return
		}
		if ev.Type != watch.Error {
			obj, err := s.convert(ev.Object)
			if err != nil {
				// As the HTTP handler would end the stream: the informer
				// re-watches.
				return
			}
			ev.Object = obj
		}
		select {
		case s.result <- ev:
		case <-s.ctx.Done():
			return
		}
	}
}
