package webhookbackend

import (
	"log/slog"
	"sync"
	"time"

	"k8s.io/client-go/util/flowcontrol"

	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

// batcher buffers events and hands them to send in batches of at most
// maxBatchSize, at least every maxBatchWait, each batch on its own
// goroutine so a slow sink does not stop the buffer from draining.
type batcher struct {
	send     func([]*auditv1.Event) error
	throttle flowcontrol.RateLimiter // nil: unthrottled
	logger   *slog.Logger
	maxBatch int
	maxWait  time.Duration

	buffer chan *auditv1.Event

	mu      sync.RWMutex
	closed  bool // no more events are taken
	started bool

	stop     chan struct{} // closed by Shutdown
	stopOnce sync.Once
	done     chan struct{} // closed when the loop has sent everything
	sends    sync.WaitGroup
}

var _ audit.Backend = (*batcher)(nil)

func newBatcher(opts BatchOptions, send func([]*auditv1.Event) error, throttle flowcontrol.RateLimiter) *batcher {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &batcher{
		send:     send,
		throttle: throttle,
		logger:   logger,
		maxBatch: opts.MaxBatchSize,
		maxWait:  opts.MaxBatchWait,
		buffer:   make(chan *auditv1.Event, opts.BufferSize),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
}

// ProcessEvents queues copies of events. A full buffer drops them (logged):
// requests are not failed for a slow audit sink, as upstream.
func (b *batcher) ProcessEvents(events ...*auditv1.Event) bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		b.logger.Error("audit webhook backend is shut down, dropping events", "count", len(events))
		return true
	}
	for i, e := range events {
		select {
		case b.buffer <- e.DeepCopy():
		default:
			b.logger.Error("audit buffer queue blocked, dropping events", "count", len(events)-i)
			return true
		}
	}
	return true
}

// Run starts the batching loop, which ends when stopCh is closed or
// Shutdown is called.
func (b *batcher) Run(stopCh <-chan struct{}) error {
	b.mu.Lock()
	if b.started || b.closed {
		b.mu.Unlock()
		return nil
	}
	b.started = true
	b.mu.Unlock()
	go b.loop(stopCh)
	return nil
}

// Shutdown stops taking events, sends all buffered ones and waits until
// every batch is delivered or given up on.
func (b *batcher) Shutdown() {
	b.stopOnce.Do(func() { close(b.stop) })
	b.mu.RLock()
	started := b.started
	b.mu.RUnlock()
	if started {
		<-b.done
	} else {
		b.flush()
	}
	b.sends.Wait()
}

func (b *batcher) loop(stopCh <-chan struct{}) {
	defer close(b.done)
	timer := time.NewTimer(b.maxWait)
	defer timer.Stop()
	for {
		batch, stopped := b.collect(timer.C, stopCh)
		b.dispatch(batch)
		if stopped {
			break
		}
		timer.Reset(b.maxWait)
	}
	b.flush()
}

// collect gathers a batch until it is full, the timer fires or the backend
// stops.
func (b *batcher) collect(timer <-chan time.Time, stopCh <-chan struct{}) (batch []*auditv1.Event, stopped bool) {
	for len(batch) < b.maxBatch {
		select {
		case e := <-b.buffer:
			batch = append(batch, e)
		case <-timer:
			return batch, false
		case <-stopCh:
			return batch, true
		case <-b.stop:
			return batch, true
		}
	}
	return batch, false
}

// flush closes the backend to new events and dispatches what is buffered.
func (b *batcher) flush() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	for {
		var batch []*auditv1.Event
	fill:
		for len(batch) < b.maxBatch {
			select {
			case e := <-b.buffer:
				batch = append(batch, e)
			default:
				break fill
			}
		}
		if len(batch) == 0 {
			return
		}
		b.dispatch(batch)
	}
}

func (b *batcher) dispatch(batch []*auditv1.Event) {
	if len(batch) == 0 {
		return
	}
	if b.throttle != nil {
		b.throttle.Accept()
	}
	b.sends.Add(1)
	go func() {
		defer b.sends.Done()
		if err := b.send(batch); err != nil {
			b.logger.Error("audit webhook failed, dropping events", "count", len(batch), "err", err)
		}
	}()
}
