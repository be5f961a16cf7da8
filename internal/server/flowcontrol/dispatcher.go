// Package flowcontrol is API Priority and Fairness: it classifies each
// request by the FlowSchemas (in matching order) into a priority level and
// a flow, sizes it in seats, and admits it through the level's
// shuffle-sharded fair queues, or rejects it, within the level's share of
// the server's concurrency limit (--max-requests-inflight plus
// --max-mutating-requests-inflight). Levels lend and borrow seats by
// demand every ten seconds. The configuration comes from FlowSchema and
// PriorityLevelConfiguration objects through Update; until the first
// Update the mandatory objects apply. The model is k8s.io/apiserver
// pkg/util/flowcontrol; the filter is filters.WithPriorityAndFairness.
package flowcontrol

import (
	"context"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/bootstrap"
)

// Options configure a Dispatcher.
type Options struct {
	// ServerConcurrencyLimit is the seats shared by all priority levels:
	// --max-requests-inflight plus --max-mutating-requests-inflight.
	ServerConcurrencyLimit int
	// Clock drives queuing and borrowing; nil is the real clock.
	Clock clock.WithTickerAndDelayedExecution
	// Metrics records apiserver_flowcontrol_*; nil records nothing.
	Metrics *Metrics
	// ObjectCount sizes lists; nil counts every list as one seat.
	ObjectCount ObjectCountFunc
}

// Dispatcher is API Priority and Fairness for one server.
type Dispatcher struct {
	clock       clock.WithTickerAndDelayedExecution
	serverCL    int
	metrics     *Metrics
	objectCount ObjectCountFunc
	watches     *watchTracker
	dropped     *droppedRequests

	mu         sync.Mutex // config changes and borrowing
	levels     map[string]*levelState
	nominalSum int
	state      atomic.Pointer[snapshot]
	configured atomic.Bool
}

// levelState is one priority level; its queueSet outlives configuration
// changes (and, quiescing, its deletion until it is idle).
type levelState struct {
	name      string
	qs        *queueSet
	limits    levelLimits
	exempt    bool
	currentCL int
	quiescing bool
	maxSeats  atomic.Int32 // per-request cap; 0 none
}

// snapshot is the classification state, swapped whole on each Update.
type snapshot struct {
	schemas []schemaState
}

type schemaState struct {
	fs      *flowcontrolv1.FlowSchema
	level   *levelState
	levelID types.UID
}

// New returns a Dispatcher configured with the mandatory objects.
func New(o Options) *Dispatcher {
	c := o.Clock
	if c == nil {
		c = clock.RealClock{}
	}
	d := &Dispatcher{
		clock: c, serverCL: o.ServerConcurrencyLimit, metrics: o.Metrics, objectCount: o.ObjectCount,
		watches: newWatchTracker(), dropped: newDroppedRequests(), levels: map[string]*levelState{},
	}
	d.apply(nil, nil)
	return d
}

// Configured reports whether Update has been called.
func (d *Dispatcher) Configured() bool { return d.configured.Load() }

// Update replaces the configuration with the given objects, which it
// reads and never modifies. Missing mandatory objects are filled in from
// bootstrap, as upstream does; FlowSchemas naming a missing priority level
// (dangling) match nothing.
func (d *Dispatcher) Update(schemas []*flowcontrolv1.FlowSchema, levels []*flowcontrolv1.PriorityLevelConfiguration) {
	d.apply(schemas, levels)
	d.configured.Store(true)
}

func (d *Dispatcher) apply(schemas []*flowcontrolv1.FlowSchema, levels []*flowcontrolv1.PriorityLevelConfiguration) {
	schemas = slices.Clone(schemas)
	levels = slices.Clone(levels)
	for _, pl := range bootstrap.MandatoryPriorityLevels() {
		if !slices.ContainsFunc(levels, func(x *flowcontrolv1.PriorityLevelConfiguration) bool { return x.Name == pl.Name }) {
			levels = append(levels, pl)
		}
	}
	for _, fs := range bootstrap.MandatoryFlowSchemas() {
		if !slices.ContainsFunc(schemas, func(x *flowcontrolv1.FlowSchema) bool { return x.Name == fs.Name }) {
			schemas = append(schemas, fs)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	limits := computeLimits(d.serverCL, levels)
	d.nominalSum = 0
	ids := map[string]types.UID{}
	for _, pl := range levels {
		ids[pl.Name] = pl.UID
		d.applyLevel(pl, limits[pl.Name])
		d.nominalSum += limits[pl.Name].nominal
	}
	for name, ls := range d.levels {
		if _, ok := ids[name]; !ok {
			ls.quiescing = true
			if ls.qs.isIdle() {
				delete(d.levels, name)
			}
		}
	}
	sortFlowSchemas(schemas)
	snap := &snapshot{schemas: make([]schemaState, 0, len(schemas))}
	for _, fs := range schemas {
		ls := d.levels[fs.Spec.PriorityLevelConfiguration.Name]
		if ls == nil || ls.quiescing {
			continue
		}
		snap.schemas = append(snap.schemas, schemaState{fs: fs, level: ls, levelID: ids[ls.name]})
	}
	d.state.Store(snap)
}

// applyLevel creates or reconfigures one level. A new level starts at its
// nominal limit less half what it may lend, as upstream.
func (d *Dispatcher) applyLevel(pl *flowcontrolv1.PriorityLevelConfiguration, lim levelLimits) {
	cfg := queueConfig{exempt: pl.Spec.Type == flowcontrolv1.PriorityLevelEnablementExempt}
	if l := pl.Spec.Limited; !cfg.exempt && l != nil && l.LimitResponse.Type == flowcontrolv1.LimitResponseTypeQueue && l.LimitResponse.Queuing != nil {
		q := l.LimitResponse.Queuing
		cfg.queues, cfg.handSize, cfg.queueLengthLimit = int(q.Queues), int(q.HandSize), int(q.QueueLengthLimit)
	}
	ls := d.levels[pl.Name]
	if ls == nil {
		cl := lim.nominal - lim.lendable/2
		ls = &levelState{name: pl.Name, currentCL: cl, qs: newQueueSet(pl.Name, d.clock, cfg, cl)}
		d.levels[pl.Name] = ls
	} else {
		ls.currentCL = min(max(ls.currentCL, lim.minCL()), lim.maxCL(d.serverCL))
		ls.qs.setConfig(cfg, ls.currentCL)
	}
	ls.limits, ls.exempt, ls.quiescing = lim, cfg.exempt, false
	ls.maxSeats.Store(int32(maxSeatsFor(lim.nominal, cfg.handSize)))
	d.metrics.setLimits(pl.Name, lim.nominal, lim.minCL(), lim.maxCL(d.serverCL), ls.currentCL)
}

// Run re-divides the seats by demand every borrowing period until ctx
// ends.
func (d *Dispatcher) Run(ctx context.Context) {
	t := d.clock.NewTicker(borrowingAdjustmentPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			d.rebalance()
		}
	}
}

// rebalance is upstream's borrowing: exempt levels keep what they used
// (at least their non-lendable seats); the others get a fair share of the
// rest between their lower bound (what they cannot lend, or what they
// used up to their nominal limit) and upper bound (nominal plus borrowing
// limit), in proportion to their smoothed demand.
func (d *Dispatcher) rebalance() {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.clock.Now()
	names := make([]string, 0, len(d.levels))
	for name := range d.levels {
		names = append(names, name)
	}
	sort.Strings(names)
	remaining := d.nominalSum
	var items []allocItem
	var limited []*levelState
	var minSum, minCurrentSum int
	for _, name := range names {
		ls := d.levels[name]
		ls.qs.mu.Lock()
		hw, smoothed := ls.qs.demand.closePeriod(now)
		ls.qs.mu.Unlock()
		if ls.exempt {
			ls.currentCL = max(ls.limits.minCL(), hw)
			remaining -= ls.currentCL
			continue
		}
		minCurrent := max(ls.limits.minCL(), min(ls.limits.nominal, hw))
		items = append(items, allocItem{lower: float64(minCurrent), upper: float64(ls.limits.maxCL(d.serverCL)), target: math.Max(float64(minCurrent), smoothed)})
		limited = append(limited, ls)
		minSum += ls.limits.minCL()
		minCurrentSum += minCurrent
		d.metrics.setBorrowing(name, items[len(items)-1].target, smoothed)
	}
	var allocs []float64
	if remaining > minCurrentSum {
		allocs = allocate(float64(d.nominalSum), items)
	}
	for i, ls := range limited {
		switch {
		case remaining <= minSum:
			ls.currentCL = ls.limits.minCL()
		case remaining <= minCurrentSum:
			frac := float64(remaining-minSum) / float64(minCurrentSum-minSum)
			ls.currentCL = ls.limits.minCL() + int(math.Round(frac*(items[i].lower-float64(ls.limits.minCL()))))
		default:
			ls.currentCL = int(math.Round(allocs[i]))
		}
		ls.qs.setLimit(ls.currentCL)
		d.metrics.setLimits(ls.name, ls.limits.nominal, ls.limits.minCL(), ls.limits.maxCL(d.serverCL), ls.currentCL)
	}
	for name, ls := range d.levels {
		if ls.quiescing && ls.qs.isIdle() {
			delete(d.levels, name)
		}
	}
}

// Classification is where a request goes: its flow schema and priority
// level, and its flow within the level.
type Classification struct {
	FlowSchemaName    string
	FlowSchemaUID     types.UID
	PriorityLevelName string
	PriorityLevelUID  types.UID
	Distinguisher     string

	hash   uint64
	level  *levelState
	digest RequestDigest
}

// Classify finds the first FlowSchema, in matching order, that matches
// d; ok is false only if none does, which the catch-all schema prevents.
func (d *Dispatcher) Classify(digest RequestDigest) (c Classification, ok bool) {
	for _, s := range d.state.Load().schemas {
		if !matchesFlowSchema(s.fs, digest) {
			continue
		}
		flow := flowDistinguisher(s.fs, digest)
		return Classification{
			FlowSchemaName: s.fs.Name, FlowSchemaUID: s.fs.UID,
			PriorityLevelName: s.level.name, PriorityLevelUID: s.levelID,
			Distinguisher: flow, hash: flowHash(s.fs.Name, flow), level: s.level, digest: digest,
		}, true
	}
	return Classification{}, false
}

// EstimateWork sizes the classified request; rawQuery is its URL query.
func (d *Dispatcher) EstimateWork(c *Classification, rawQuery string) WorkEstimate {
	return d.estimateWork(c.digest.RequestInfo, rawQuery, int(c.level.maxSeats.Load()))
}

// RegisterWatch counts an open watch for the seats of the writes that
// notify it; call the returned func when the watch ends.
func (d *Dispatcher) RegisterWatch(c *Classification) func() {
	return d.watches.register(c.digest.RequestInfo)
}

// Handle admits the classified request: it calls execute once the request
// may run and returns "" after it ran, or returns the reason it was
// rejected (execute not called): queue-full, concurrency-limit, time-out
// (ctx's deadline passed while queued) or cancelled. inQueue, when set,
// learns when the request enters and leaves a queue.
func (d *Dispatcher) Handle(ctx context.Context, c *Classification, work WorkEstimate, inQueue func(bool), execute func()) (rejectReason string) {
	p := d.metrics.pair(c.PriorityLevelName, c.FlowSchemaName)
	if p != nil {
		p.workSeats.Observe(float64(work.MaxSeats()))
	}
	work.InitialSeats = max(work.InitialSeats, minimumSeats)
	r := &queuedRequest{ctx: ctx, work: work, schema: c.FlowSchemaName, flow: c.Distinguisher, digest: c.digest}
	qs := c.level.qs
	note := func(in bool) {
		if p != nil {
			d := 1.0
			if !in {
				d = -1
			}
			p.inQueue.Add(d)
			p.inQueueSeats.Add(d * float64(work.MaxSeats()))
			if in {
				p.queueLength.Observe(float64(r.queueLenAfter))
			}
		}
		if inQueue != nil {
			inQueue(in)
		}
	}
	if err := qs.start(ctx, r, c.hash, note); err != nil {
		if p != nil {
			p.waitRejected.Observe(d.clock.Since(r.arrive).Seconds())
			p.reject(r.rejectedBy)
		}
		d.dropped.record(c.PriorityLevelName, d.clock.Now())
		return r.rejectedBy
	}
	if p != nil {
		p.waitExecuted.Observe(r.start.Sub(r.arrive).Seconds())
		p.dispatched.Inc()
		p.executing.Inc()
		p.executingSeats.Add(float64(work.InitialSeats))
	}
	defer d.finish(qs, r, p)
	execute()
	return ""
}

// finish ends r's execution and, for a write with watchers, releases its
// final seats after the additional latency.
func (d *Dispatcher) finish(qs *queueSet, r *queuedRequest, p *pairMetrics) {
	elapsed := d.clock.Since(r.start)
	if p != nil {
		if r.digest.RequestInfo != nil && r.digest.RequestInfo.Verb == "watch" {
			p.execWatch.Observe(elapsed.Seconds())
		} else {
			p.execRegular.Observe(elapsed.Seconds())
		}
	}
	if !qs.finishInitial(r) {
		if p != nil {
			p.executing.Dec()
			p.executingSeats.Sub(float64(r.work.InitialSeats))
		}
		return
	}
	if p != nil {
		p.executingSeats.Add(float64(r.work.FinalSeats - r.work.InitialSeats))
	}
	d.clock.AfterFunc(r.work.AdditionalLatency, func() {
		qs.release(r)
		if p != nil {
			p.executing.Dec()
			p.executingSeats.Sub(float64(r.work.FinalSeats))
		}
	})
}

// RetryAfter is the Retry-After, in seconds, for a request of the level
// just rejected.
func (d *Dispatcher) RetryAfter(level string) int64 { return d.dropped.retryAfter(level) }
