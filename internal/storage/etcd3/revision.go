package etcd3

import (
	"context"
	"sync"
	"time"
)

// revisionReadTimeout bounds one shared read of the current revision: the
// callers waiting on it have deadlines of their own, and a read nobody
// waits for any more must still end. It is kube-apiserver's default
// request timeout.
const revisionReadTimeout = time.Minute

// revisionBatch shares the reads of etcd's current revision between the
// callers that ask for it at the same time. A caller is answered by a read
// that started after it asked (never by one already under way), so it sees
// every write that completed before its call, as a read of its own would.
// A burst of consistent reads from the watch cache, such as a starting
// server's informers listing together, then costs one or two round trips
// instead of one each: etcd answers such a burst together anyway, once it
// has applied what it committed before.
//
// The zero value is ready to use.
type revisionBatch struct {
	mu      sync.Mutex
	reading bool
	// next is the read the callers asking now join; it starts when the
	// read under way ends.
	next *revisionRead
}

// revisionRead is one read of the revision and its answer.
type revisionRead struct {
	// ctx is the first caller's: the read carries its values, not its
	// cancellation, since it answers the others too.
	ctx  context.Context
	done chan struct{}
	rev  int64
	err  error
	// callers is how many asked for this read (b.mu).
	callers int
}

// get returns the revision read by a read that started after this call,
// with read doing the reading.
func (b *revisionBatch) get(ctx context.Context, read func(context.Context) (int64, error)) (int64, error) {
	b.mu.Lock()
	r := b.next
	if r == nil {
		r = &revisionRead{ctx: ctx, done: make(chan struct{})}
		b.next = r
	}
	r.callers++
	if !b.reading {
		b.startLocked(read)
	}
	b.mu.Unlock()
	select {
	case <-r.done:
		return r.rev, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// startLocked sends the read b.next; the one after it starts when it ends.
// b.mu is held.
func (b *revisionBatch) startLocked(read func(context.Context) (int64, error)) {
	r := b.next
	b.next, b.reading = nil, true
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), revisionReadTimeout)
		r.rev, r.err = read(ctx)
		cancel()
		close(r.done)
		b.mu.Lock()
		defer b.mu.Unlock()
		b.reading = false
		if b.next != nil {
			b.startLocked(read)
		}
	}()
}
