package workload

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/bench/result"
	"github.com/kapi-dev/kapi/internal/bench/stats"
)

// statusAnnotation is the status-like field mixed's workers write.
const statusAnnotation = "kapi-bench/status"

// opStats is one operation type's numbers in the mix.
type opStats struct {
	ops  atomic.Int64
	lat  stats.Samples
	errs ErrorCounts
}

func (o *opStats) observe(r *Runner, t0 time.Time, err error) {
	d := time.Since(t0)
	r.progress.Add(err)
	if err != nil {
		o.errs.Add(err)
		return
	}
	o.lat.Record(d)
	o.ops.Add(1)
}

// mixed runs a controller-like loop for Duration: one informer-like
// list+watch of the namespace with a relist every RelistInterval, and
// workers that get an object and update a status-like annotation on it.
func (r *Runner) mixed(ctx context.Context) error {
	if err := r.ensureObjects(ctx); err != nil {
		return err
	}
	params := map[string]any{"objects": r.cfg.Objects, "workers": r.cfg.Workers, "duration": r.cfg.Duration.String(), "relist": r.cfg.RelistInterval.String()}
	m := r.begin("mixed", "mixed", params)
	r.progress.Begin("mixed", 0)
	var gets, updates, lists opStats
	var events atomic.Int64
	rctx, stop := context.WithTimeout(ctx, r.cfg.Duration)
	defer stop()
	start := time.Now()
	var wg sync.WaitGroup
	// Requests run on ctx, not rctx: cutting one off at the deadline would
	// count a failure that the server did not cause.
	wg.Go(func() { r.informer(ctx, rctx, &lists, &events) })
	for w := range r.cfg.Workers {
		wg.Go(func() { r.controllerWorker(ctx, rctx, w, &gets, &updates) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	r.progress.End()
	if err := ctx.Err(); err != nil {
		m.stopServer(0)
		return err
	}

	// The server's cost is that of the whole mix, per operation of any kind.
	total := gets.ops.Load() + updates.ops.Load() + lists.ops.Load()
	server := m.stopServer(total)
	for _, op := range []struct {
		phase string
		s     *opStats
	}{{"mixed/update", &updates}, {"mixed/get", &gets}, {"mixed/list", &lists}} {
		p := result.Phase{
			Server: m.phase.Server, Backend: m.phase.Backend, Workload: "mixed", Phase: op.phase,
			Start: m.phase.Start, Params: params, Ops: op.s.ops.Load(), Seconds: elapsed.Seconds(),
			Latency: op.s.lat.Latency(), Errors: op.s.errs.Map(), ServerProcess: server,
		}
		p.OpsPerSec = float64(p.Ops) / p.Seconds
		if op.phase == "mixed/list" {
			p.Extra = map[string]float64{"watchEvents": float64(events.Load())}
		}
		r.emit(p)
	}
	return nil
}

// informer lists the namespace, watches from the list's version, and
// lists again every RelistInterval, as a controller's reflector would
// (with a much shorter resync, to put relists in the mix).
// It makes requests with ctx until run ends.
func (r *Runner) informer(ctx, run context.Context, lists *opStats, events *atomic.Int64) {
	cms := r.c.JSON.CoreV1().ConfigMaps(r.ns)
	for run.Err() == nil {
		t0 := time.Now()
		list, err := cms.List(ctx, metav1.ListOptions{})
		if ctx.Err() != nil {
			return
		}
		lists.observe(r, t0, err)
		if err != nil {
			// Back off a little, as a reflector does.
			select {
			case <-run.Done():
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		wctx, cancel := context.WithTimeout(run, r.cfg.RelistInterval)
		if w, err := cms.Watch(wctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion}); err == nil {
			var discard []arrival
			_, _ = drain(wctx, w, list.ResourceVersion, &discard, events)
			w.Stop()
		} else if wctx.Err() == nil {
			lists.errs.Add(err)
			<-wctx.Done()
		}
		cancel()
	}
}

// controllerWorker gets and updates its share of the objects (index ≡ w
// mod workers, so workers never conflict) in turn, with requests on ctx,
// until run ends.
func (r *Runner) controllerWorker(ctx, run context.Context, w int, gets, updates *opStats) {
	cms := r.c.JSON.CoreV1().ConfigMaps(r.ns)
	stamp := strconv.FormatInt(time.Now().UnixNano(), 10) + "-"
	for i, seq := w, 0; run.Err() == nil; i, seq = i+r.cfg.Workers, seq+1 {
		if i >= r.cfg.Objects {
			i = w
		}
		if i >= r.cfg.Objects {
			return // more workers than objects
		}
		t0 := time.Now()
		cm, err := cms.Get(ctx, name(i), metav1.GetOptions{})
		if ctx.Err() != nil {
			return
		}
		gets.observe(r, t0, err)
		if err != nil {
			continue
		}
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		cm.Annotations[statusAnnotation] = stamp + strconv.Itoa(seq)
		t0 = time.Now()
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		if ctx.Err() != nil {
			return
		}
		updates.observe(r, t0, err)
	}
}
