package flowcontrol

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

func newTestQueueSet(cfg queueConfig, limit int) (*queueSet, *testingclock.FakeClock) {
	clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return newQueueSet("test", clk, cfg, limit), clk
}

func oneSeat(name string) *queuedRequest {
	return &queuedRequest{schema: name, flow: name, work: WorkEstimate{InitialSeats: 1}}
}

// waitFor spins (yielding, no sleeping) until cond holds under qs.mu.
func waitFor(t *testing.T, qs *queueSet, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		qs.mu.Lock()
		ok := cond()
		qs.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		runtime.Gosched()
	}
}

// startAsync starts r on its own goroutine; the error arrives on the
// returned channel.
func startAsync(ctx context.Context, qs *queueSet, r *queuedRequest, hash uint64) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- qs.start(ctx, r, hash, nil) }()
	return ch
}

func TestRejectLevel(t *testing.T) {
	qs, _ := newTestQueueSet(queueConfig{}, 2)
	ctx := context.Background()
	a, b, c := oneSeat("a"), oneSeat("b"), oneSeat("c")
	for _, r := range []*queuedRequest{a, b} {
		if err := qs.start(ctx, r, 0, nil); err != nil {
			t.Fatalf("%s: %v", r.flow, err)
		}
	}
	if err := qs.start(ctx, c, 0, nil); err == nil || c.rejectedBy != reasonConcurrencyLimit {
		t.Fatalf("third request: %v %q, want concurrency-limit", err, c.rejectedBy)
	}
	qs.finishInitial(a)
	if err := qs.start(ctx, oneSeat("d"), 0, nil); err != nil {
		t.Fatalf("after a seat freed: %v", err)
	}
}

func TestExemptNeverLimits(t *testing.T) {
	qs, _ := newTestQueueSet(queueConfig{exempt: true}, 0)
	for i := range 5 {
		if err := qs.start(context.Background(), oneSeat("x"), 0, nil); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if qs.executing != 5 {
		t.Fatalf("executing %d, want 5", qs.executing)
	}
}

// TestFairDispatch: flow A fills the only seat and queues three more;
// flow B queues one later. B is served before A's backlog, because A's
// queue was charged for the second A spent executing.
func TestFairDispatch(t *testing.T) {
	qs, clk := newTestQueueSet(queueConfig{queues: 4, handSize: 1, queueLengthLimit: 10}, 1)
	ctx := context.Background()
	first := oneSeat("A")
	if err := qs.start(ctx, first, 0, nil); err != nil {
		t.Fatal(err)
	}
	var order []string
	var chans []<-chan error
	var reqs []*queuedRequest
	enqueue := func(name string, hash uint64) {
		r := oneSeat(name)
		reqs = append(reqs, r)
		n := qs.waiting
		ch := make(chan error, 1)
		go func() { ch <- qs.start(ctx, r, hash, nil) }()
		chans = append(chans, ch)
		waitFor(t, qs, func() bool { return qs.waiting == n+1 })
	}
	enqueue("A", 0)
	enqueue("A", 0)
	enqueue("A", 0)
	enqueue("B", 1)
	clk.Step(time.Second)
	qs.finishInitial(first)
	for range reqs {
		// Serve one at a time: wait for a dispatch, finish it.
		waitFor(t, qs, func() bool { return qs.executing == 1 })
		var running *queuedRequest
		qs.mu.Lock()
		for _, r := range reqs {
			if r.decided && r.seats > 0 {
				running = r
			}
		}
		qs.mu.Unlock()
		order = append(order, running.flow)
		clk.Step(time.Millisecond)
		qs.finishInitial(running)
	}
	for _, ch := range chans {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"B", "A", "A", "A"}; !slices.Equal(order, want) {
		t.Fatalf("dispatch order %v, want %v", order, want)
	}
}

func TestQueueFullAndWaitEnd(t *testing.T) {
	qs, _ := newTestQueueSet(queueConfig{queues: 1, handSize: 1, queueLengthLimit: 1}, 1)
	bg := context.Background()
	if err := qs.start(bg, oneSeat("run"), 0, nil); err != nil {
		t.Fatal(err)
	}
	// One waits (until cancelled), the next finds the queue full.
	cancelCtx, cancel := context.WithCancel(bg)
	waiting := oneSeat("wait")
	errc := startAsync(cancelCtx, qs, waiting, 0)
	waitFor(t, qs, func() bool { return qs.waiting == 1 })
	full := oneSeat("full")
	if err := qs.start(bg, full, 0, nil); err == nil || full.rejectedBy != reasonQueueFull {
		t.Fatalf("full queue: %v %q", err, full.rejectedBy)
	}
	cancel()
	if err := <-errc; err == nil || waiting.rejectedBy != reasonCancelled {
		t.Fatalf("cancelled wait: %v %q", err, waiting.rejectedBy)
	}
	// A deadline already past: rejected as time-out, queue emptied.
	past, cancel2 := context.WithDeadline(bg, time.Now().Add(-time.Second))
	defer cancel2()
	late := oneSeat("late")
	if err := qs.start(past, late, 0, nil); err == nil || late.rejectedBy != reasonTimeout {
		t.Fatalf("expired wait: %v %q", err, late.rejectedBy)
	}
	if qs.waiting != 0 || qs.timedOut != 1 || qs.cancelledReqs != 1 || qs.rejected != 3 {
		t.Fatalf("waiting %d timedOut %d cancelled %d rejected %d", qs.waiting, qs.timedOut, qs.cancelledReqs, qs.rejected)
	}
}

// TestWideRequests: a request wider than the limit runs alone; one that
// does not fit waits even if a narrower one behind it would.
func TestWideRequests(t *testing.T) {
	qs, _ := newTestQueueSet(queueConfig{queues: 1, handSize: 1, queueLengthLimit: 10}, 2)
	bg := context.Background()
	wide := &queuedRequest{work: WorkEstimate{InitialSeats: 3}}
	if err := qs.start(bg, wide, 0, nil); err != nil {
		t.Fatalf("wide request on an idle level: %v", err)
	}
	narrow := oneSeat("n")
	errc := startAsync(bg, qs, narrow, 0)
	waitFor(t, qs, func() bool { return qs.waiting == 1 })
	qs.finishInitial(wide)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	wide2 := &queuedRequest{work: WorkEstimate{InitialSeats: 2}}
	errWide := startAsync(bg, qs, wide2, 0)
	waitFor(t, qs, func() bool { return qs.waiting == 1 })
	small := oneSeat("s")
	errSmall := startAsync(bg, qs, small, 0)
	waitFor(t, qs, func() bool { return qs.waiting == 2 })
	if qs.seatsInUse != 1 {
		t.Fatalf("seats in use %d: the narrow request jumped the wide one", qs.seatsInUse)
	}
	qs.finishInitial(narrow)
	if err := <-errWide; err != nil {
		t.Fatal(err)
	}
	qs.finishInitial(wide2)
	if err := <-errSmall; err != nil {
		t.Fatal(err)
	}
}

// TestFinalSeats: a write with watchers keeps its final seats after it
// returns, until released.
func TestFinalSeats(t *testing.T) {
	qs, _ := newTestQueueSet(queueConfig{}, 4)
	r := &queuedRequest{work: WorkEstimate{InitialSeats: 1, FinalSeats: 3, AdditionalLatency: 5 * time.Millisecond}}
	if err := qs.start(context.Background(), r, 0, nil); err != nil {
		t.Fatal(err)
	}
	if !qs.finishInitial(r) || qs.seatsInUse != 3 {
		t.Fatalf("after execution: seats %d, want the 3 final seats", qs.seatsInUse)
	}
	qs.release(r)
	if qs.seatsInUse != 0 || qs.executing != 0 {
		t.Fatalf("after release: seats %d executing %d", qs.seatsInUse, qs.executing)
	}
}

func TestDeal(t *testing.T) {
	for _, tc := range []struct{ deck, hand int }{{8, 1}, {8, 8}, {64, 6}, {128, 7}} {
		for h := uint64(0); h < 5000; h += 7 {
			var got []int
			deal(h*0x9e3779b97f4a7c15, tc.deck, tc.hand, func(i int) { got = append(got, i) })
			if len(got) != tc.hand {
				t.Fatalf("deck %d hand %d: %v", tc.deck, tc.hand, got)
			}
			sorted := slices.Clone(got)
			slices.Sort(sorted)
			if len(slices.Compact(sorted)) != tc.hand || sorted[0] < 0 || sorted[len(sorted)-1] >= tc.deck {
				t.Fatalf("deck %d hand %d: not distinct cards of the deck: %v", tc.deck, tc.hand, got)
			}
		}
	}
	var a, b []int
	deal(42, 64, 6, func(i int) { a = append(a, i) })
	deal(42, 64, 6, func(i int) { b = append(b, i) })
	if !slices.Equal(a, b) {
		t.Fatalf("not deterministic: %v %v", a, b)
	}
}
