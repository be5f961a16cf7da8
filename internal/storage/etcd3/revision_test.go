package etcd3

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeReads is a read of the revision that answers with the number of
// reads started so far, each read waiting until the test releases it.
type fakeReads struct {
	started atomic.Int64
	begun   chan int64    // the number of each read as it starts
	release chan struct{} // one receive per read
	err     error
}

func newFakeReads() *fakeReads {
	return &fakeReads{begun: make(chan int64, 100), release: make(chan struct{})}
}

func (f *fakeReads) read(ctx context.Context) (int64, error) {
	n := f.started.Add(1)
	f.begun <- n
	select {
	case <-f.release:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	return n, f.err
}

type answer struct {
	rev int64
	err error
}

func askAsync(b *revisionBatch, ctx context.Context, f *fakeReads) <-chan answer {
	out := make(chan answer, 1)
	go func() {
		rev, err := b.get(ctx, f.read)
		out <- answer{rev, err}
	}()
	return out
}

// A caller that asks while a read is under way is answered by the next
// read, which starts once that one ends, and shares it with every caller
// that asked meanwhile.
func TestRevisionBatchAnswersFromALaterRead(t *testing.T) {
	var b revisionBatch
	f := newFakeReads()
	ctx := context.Background()

	first := askAsync(&b, ctx, f)
	if n := <-f.begun; n != 1 {
		t.Fatalf("first read is number %d", n)
	}
	// Ten callers arrive while read 1 is under way.
	var later []<-chan answer
	for range 10 {
		later = append(later, askAsync(&b, ctx, f))
	}
	// All of them join the next read; none may start one of its own.
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.mu.Lock()
		joined := 0
		if b.next != nil {
			joined = b.next.callers
		}
		b.mu.Unlock()
		if joined == 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d callers joined the next read, want 10", joined)
		}
		time.Sleep(time.Millisecond)
	}
	if got := f.started.Load(); got != 1 {
		t.Fatalf("%d reads started while one was under way, want 1", got)
	}
	f.release <- struct{}{}
	if a := <-first; a.rev != 1 || a.err != nil {
		t.Fatalf("first caller got %+v, want read 1", a)
	}
	if n := <-f.begun; n != 2 {
		t.Fatalf("second read is number %d", n)
	}
	f.release <- struct{}{}
	for i, ch := range later {
		if a := <-ch; a.rev != 2 || a.err != nil {
			t.Errorf("caller %d got %+v, want read 2 (it asked after read 1 started)", i, a)
		}
	}
	if got := f.started.Load(); got != 2 {
		t.Errorf("%d reads for 11 callers, want 2", got)
	}
}

// A caller that gives up gets its context's error; the others of its read
// still get the answer, and the read goes on without it.
func TestRevisionBatchCallerGivesUp(t *testing.T) {
	var b revisionBatch
	f := newFakeReads()
	ctx, cancel := context.WithCancel(context.Background())
	quitter := askAsync(&b, ctx, f)
	<-f.begun
	stayer := askAsync(&b, context.Background(), f) // joins the next read
	cancel()
	if a := <-quitter; !errors.Is(a.err, context.Canceled) {
		t.Fatalf("canceled caller got %+v, want context.Canceled", a)
	}
	f.release <- struct{}{} // read 1 ends although its first caller left
	<-f.begun
	f.release <- struct{}{}
	if a := <-stayer; a.rev != 2 || a.err != nil {
		t.Errorf("remaining caller got %+v, want read 2", a)
	}
}

// A failed read fails every caller that waited for it, and the next
// caller reads again.
func TestRevisionBatchError(t *testing.T) {
	var b revisionBatch
	f := newFakeReads()
	f.err = errors.New("etcd is away")
	var wg sync.WaitGroup
	first := askAsync(&b, context.Background(), f)
	<-f.begun
	f.release <- struct{}{}
	if a := <-first; a.err == nil {
		t.Fatal("a failed read answered without an error")
	}
	f.err = nil
	wg.Go(func() {
		<-f.begun
		f.release <- struct{}{}
	})
	rev, err := b.get(context.Background(), f.read)
	wg.Wait()
	if err != nil || rev != 2 {
		t.Errorf("after a failed read: rev %d, err %v; want a new read, 2", rev, err)
	}
}
