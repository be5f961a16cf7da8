package flowcontrol

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// estimatedServiceDuration is the G of upstream's fair queuing: the
// execution time charged to a queue when a request is dispatched, settled
// against the real duration when it finishes.
const estimatedServiceDuration = 3 * time.Millisecond

// Reasons a request is rejected, the reason label of
// apiserver_flowcontrol_rejected_requests_total.
const (
	reasonQueueFull        = "queue-full"
	reasonConcurrencyLimit = "concurrency-limit"
	reasonTimeout          = "time-out"
	reasonCancelled        = "cancelled"
)

// queueConfig is a priority level's queuing: queues 0 is the Reject
// limit response (no queues), exempt never limits.
type queueConfig struct {
	exempt           bool
	queues           int
	handSize         int
	queueLengthLimit int
}

// queueSet is the fair queuing of one priority level: shuffle-sharded
// queues served in order of virtual finish time, sized in seats. Virtual
// time R advances, per active queue, at the rate seats are used, so a flow
// that sends more than its share sees its queue's dispatch R run ahead of
// the others' and waits longer (upstream's queueset is the model).
type queueSet struct {
	name  string
	clock clock.PassiveClock

	mu     sync.Mutex
	cfg    queueConfig
	limit  int // current concurrency limit in seats
	queues []*queue

	currentR     float64 // seat-seconds
	lastRealTime time.Time
	robin        int

	waiting, waitingSeats   int
	executing, seatsInUse   int
	queueless               map[*queuedRequest]struct{} // executing without a queue
	dispatched, rejected    int
	timedOut, cancelledReqs int

	demand demandStats
}

type queue struct {
	index         int
	waiting       []*queuedRequest
	executing     map[*queuedRequest]struct{}
	seatsInUse    int
	waitingSeats  int
	nextDispatchR float64
}

// request is one request in a queueSet, waiting or executing.
type queuedRequest struct {
	ctx        context.Context
	qs         *queueSet
	queue      *queue
	work       WorkEstimate
	seats      int // seats held now
	arrive     time.Time
	start      time.Time
	schema     string
	flow       string
	digest     RequestDigest
	decision   chan bool // true: execute; false: rejected
	decided    bool
	rejectedBy string
	// queueLenAfter is the queue's length right after r joined it.
	queueLenAfter int
}

// totalWork is the virtual-time cost charged to the request's queue.
func (r *queuedRequest) totalWork() float64 {
	return float64(r.work.InitialSeats)*estimatedServiceDuration.Seconds() +
		float64(r.work.FinalSeats)*r.work.AdditionalLatency.Seconds()
}

func newQueueSet(name string, c clock.PassiveClock, cfg queueConfig, limit int) *queueSet {
	qs := &queueSet{name: name, clock: c, limit: limit, lastRealTime: c.Now(), queueless: map[*queuedRequest]struct{}{}}
	qs.demand.last = qs.lastRealTime
	qs.setConfig(cfg, limit)
	return qs
}

// setConfig changes the queuing and the limit in place. Surplus queues
// stay until their requests are gone, so nothing waiting is lost.
func (qs *queueSet) setConfig(cfg queueConfig, limit int) {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.syncTimeLocked()
	qs.cfg = cfg
	qs.limit = limit
	for len(qs.queues) < cfg.queues {
		qs.queues = append(qs.queues, &queue{index: len(qs.queues), executing: map[*queuedRequest]struct{}{}})
	}
	qs.trimQueuesLocked()
	qs.dispatchLocked()
}

func (qs *queueSet) setLimit(limit int) {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.syncTimeLocked()
	qs.limit = limit
	qs.dispatchLocked()
}

func (qs *queueSet) trimQueuesLocked() {
	for n := len(qs.queues); n > qs.cfg.queues; n-- {
		q := qs.queues[n-1]
		if len(q.waiting) > 0 || len(q.executing) > 0 {
			return
		}
		qs.queues = qs.queues[:n-1]
	}
}

// errRejected is returned by start for a request that will not execute.
var errRejected = errors.New("rejected")

// start admits r: it returns nil once r may execute, or errRejected with
// r.rejectedBy set. A queued request waits until dispatched or until ctx
// ends (time-out or cancelled). inQueue, when set, is told when r enters
// and leaves a queue.
func (qs *queueSet) start(ctx context.Context, r *queuedRequest, hash uint64, inQueue func(bool)) error {
	r.qs = qs
	qs.mu.Lock()
	qs.syncTimeLocked()
	r.arrive = qs.lastRealTime
	if qs.cfg.exempt || qs.cfg.queues == 0 {
		defer qs.mu.Unlock()
		if !qs.cfg.exempt && !qs.fitsLocked(r.work.InitialSeats) {
			return qs.rejectLocked(r, reasonConcurrencyLimit)
		}
		qs.executeLocked(r)
		return nil
	}
	q := qs.chooseQueueLocked(hash)
	if len(q.waiting) >= qs.cfg.queueLengthLimit {
		defer qs.mu.Unlock()
		return qs.rejectLocked(r, reasonQueueFull)
	}
	qs.enqueueLocked(q, r)
	r.queueLenAfter = len(q.waiting)
	qs.dispatchLocked()
	if r.decided {
		qs.mu.Unlock()
		return nil
	}
	qs.mu.Unlock()
	if inQueue != nil {
		inQueue(true)
		defer inQueue(false)
	}
	select {
	case ok := <-r.decision:
		if ok {
			return nil
		}
		return errRejected
	case <-ctx.Done():
	}
	qs.mu.Lock()
	defer qs.mu.Unlock()
	if r.decided { // dispatched while the context ended
		return nil
	}
	qs.syncTimeLocked()
	qs.removeWaitingLocked(r)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		qs.timedOut++
		return qs.rejectLocked(r, reasonTimeout)
	}
	qs.cancelledReqs++
	return qs.rejectLocked(r, reasonCancelled)
}

func (qs *queueSet) rejectLocked(r *queuedRequest, reason string) error {
	r.rejectedBy = reason
	qs.rejected++
	return errRejected
}

// chooseQueueLocked deals the flow's hand and picks the queue in it with
// the fewest seats waiting and in use.
func (qs *queueSet) chooseQueueLocked(hash uint64) *queue {
	var best *queue
	bestSeats := 0
	deal(hash, qs.cfg.queues, qs.cfg.handSize, func(i int) {
		q := qs.queues[i]
		seats := q.seatsInUse + q.waitingSeats
		if best == nil || seats < bestSeats {
			best, bestSeats = q, seats
		}
	})
	return best
}

func (qs *queueSet) enqueueLocked(q *queue, r *queuedRequest) {
	if len(q.waiting) == 0 && len(q.executing) == 0 {
		// An idle queue starts at the current virtual time: a flow
		// gains no credit for having been quiet.
		q.nextDispatchR = qs.currentR
	}
	r.queue = q
	r.decision = make(chan bool, 1)
	q.waiting = append(q.waiting, r)
	q.waitingSeats += r.work.MaxSeats()
	qs.waiting++
	qs.waitingSeats += r.work.MaxSeats()
}

func (qs *queueSet) removeWaitingLocked(r *queuedRequest) {
	q := r.queue
	for i, w := range q.waiting {
		if w == r {
			q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
			q.waitingSeats -= r.work.MaxSeats()
			qs.waiting--
			qs.waitingSeats -= r.work.MaxSeats()
			break
		}
	}
	qs.trimQueuesLocked()
}

// fitsLocked: a request fits if its seats are free; one wider than the
// whole limit runs alone once nothing else executes, as upstream.
func (qs *queueSet) fitsLocked(seats int) bool {
	if seats > qs.limit {
		return qs.executing == 0
	}
	return qs.seatsInUse+seats <= qs.limit
}

// dispatchLocked starts waiting requests, the one with the smallest
// virtual finish time first, while they fit. It never skips a wide head
// for a narrower one behind it.
func (qs *queueSet) dispatchLocked() {
	for qs.waiting > 0 {
		q := qs.nextQueueLocked()
		if q == nil {
			return
		}
		r := q.waiting[0]
		if !qs.fitsLocked(r.work.InitialSeats) {
			return
		}
		q.waiting = q.waiting[1:]
		q.waitingSeats -= r.work.MaxSeats()
		qs.waiting--
		qs.waitingSeats -= r.work.MaxSeats()
		q.nextDispatchR += r.totalWork()
		qs.executeLocked(r)
	}
}

func (qs *queueSet) nextQueueLocked() *queue {
	var best *queue
	bestFinish := 0.0
	n := len(qs.queues)
	for range n {
		qs.robin = (qs.robin + 1) % n
		q := qs.queues[qs.robin]
		if len(q.waiting) == 0 {
			continue
		}
		finish := q.nextDispatchR + q.waiting[0].totalWork()
		if best == nil || finish < bestFinish {
			best, bestFinish = q, finish
		}
	}
	if best != nil {
		qs.robin = best.index
	}
	return best
}

func (qs *queueSet) executeLocked(r *queuedRequest) {
	r.decided = true
	r.start = qs.lastRealTime
	r.seats = r.work.InitialSeats
	qs.executing++
	qs.seatsInUse += r.seats
	qs.dispatched++
	if r.queue != nil {
		r.queue.executing[r] = struct{}{}
		r.queue.seatsInUse += r.seats
	} else {
		qs.queueless[r] = struct{}{}
	}
	qs.noteDemandLocked()
	if r.decision != nil {
		r.decision <- true
	}
}

// finishInitial ends r's execution; with final seats the request keeps
// them for its additional latency and release must be called after it.
// It returns whether final seats are held.
func (qs *queueSet) finishInitial(r *queuedRequest) bool {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.syncTimeLocked()
	if q := r.queue; q != nil {
		// Settle the estimate against the real service time.
		actual := qs.lastRealTime.Sub(r.start)
		q.nextDispatchR -= float64(r.work.InitialSeats) * (estimatedServiceDuration - actual).Seconds()
	}
	if r.work.FinalSeats > 0 && r.work.AdditionalLatency > 0 {
		qs.changeSeatsLocked(r, r.work.FinalSeats)
		return true
	}
	qs.releaseLocked(r)
	return false
}

// release frees the final seats of r.
func (qs *queueSet) release(r *queuedRequest) {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	qs.syncTimeLocked()
	qs.releaseLocked(r)
}

func (qs *queueSet) changeSeatsLocked(r *queuedRequest, seats int) {
	delta := seats - r.seats
	r.seats = seats
	qs.seatsInUse += delta
	if r.queue != nil {
		r.queue.seatsInUse += delta
	}
	qs.noteDemandLocked()
	if delta < 0 {
		qs.dispatchLocked()
	}
}

func (qs *queueSet) releaseLocked(r *queuedRequest) {
	qs.executing--
	qs.seatsInUse -= r.seats
	if q := r.queue; q != nil {
		delete(q.executing, r)
		q.seatsInUse -= r.seats
	} else {
		delete(qs.queueless, r)
	}
	r.seats = 0
	qs.trimQueuesLocked()
	qs.noteDemandLocked()
	qs.dispatchLocked()
}

// syncTimeLocked advances virtual time to now: R grows by the seats in
// use (at most the limit) shared among the active queues.
func (qs *queueSet) syncTimeLocked() {
	now := qs.clock.Now()
	dt := now.Sub(qs.lastRealTime).Seconds()
	qs.lastRealTime = now
	if dt <= 0 {
		return
	}
	qs.demand.advance(now, qs.seatsInUse+qs.waitingSeats)
	active, requested := 0, qs.seatsInUse+qs.waitingSeats
	for _, q := range qs.queues {
		if len(q.waiting) > 0 || len(q.executing) > 0 {
			active++
		}
	}
	if active == 0 {
		return
	}
	qs.currentR += dt * float64(min(requested, qs.limit)) / float64(active)
}

func (qs *queueSet) noteDemandLocked() {
	qs.demand.advance(qs.lastRealTime, qs.seatsInUse+qs.waitingSeats)
}

// isIdle: nothing waits and nothing executes.
func (qs *queueSet) isIdle() bool {
	qs.mu.Lock()
	defer qs.mu.Unlock()
	return qs.waiting == 0 && qs.executing == 0
}

// deal picks handSize distinct queues out of deckSize from hash, as
// upstream's shuffle-sharding dealer: each pick takes the next mixed-radix
// digit of the hash as an index into the queues not dealt yet.
func deal(hash uint64, deckSize, handSize int, pick func(int)) {
	handSize = min(handSize, deckSize)
	var dealt [128]int
	if handSize > len(dealt) {
		handSize = len(dealt)
	}
	for i := range handSize {
		left := uint64(deckSize - i)
		card := int(hash % left)
		hash /= left
		// Skip over the cards already dealt, in ascending order.
		j := 0
		for ; j < i; j++ {
			if dealt[j] > card {
				break
			}
			card++
		}
		copy(dealt[j+1:i+1], dealt[j:i])
		dealt[j] = card
		pick(card)
	}
}
