package workload

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/bench/stats"
)

// arrival is one event as a watcher saw it: the object's name and
// resourceVersion, and when the event was decoded.
type arrival struct {
	key string
	at  time.Time
}

func eventKey(name, rv string) string { return name + "@" + rv }

// delays is the watch accounting of one run.
type delays struct {
	samples  stats.Samples
	received int64 // events matching a write, once per watcher
	negative int64 // events seen before the write's response (clamped to 0)
	lost     int64 // expected events that never arrived
}

// accountDelays matches every watcher's arrivals with the writes (key →
// the time the write's response was read). The delay of an event is its
// arrival minus the response; an event can beat the response to the
// client, so a negative delay counts as 0 and is counted. Every write is
// expected once by every watcher; what did not come is lost. Events that
// match no write (and repeats) are ignored.
func accountDelays(writes map[string]time.Time, arrivals [][]arrival) *delays {
	d := &delays{}
	for _, events := range arrivals {
		seen := make(map[string]bool, len(writes))
		for _, a := range events {
			wrote, ok := writes[a.key]
			if !ok || seen[a.key] {
				continue
			}
			seen[a.key] = true
			d.received++
			delay := a.at.Sub(wrote)
			if delay < 0 {
				d.negative++
				delay = 0
			}
			d.samples.Record(delay)
		}
	}
	d.lost = int64(len(writes))*int64(len(arrivals)) - d.received
	return d
}

// watch runs W watchers from one resourceVersion and one writer patching
// objects at Rate for Duration, and reports the delay from each write's
// response to each watcher's event.
func (r *Runner) watch(ctx context.Context) error {
	if err := r.ensureObjects(ctx); err != nil {
		return err
	}
	cms := r.c.JSON.CoreV1().ConfigMaps(r.ns)
	head, err := cms.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return fmt.Errorf("setup (list for a resourceVersion): %w", err)
	}
	params := map[string]any{"objects": r.cfg.Objects, "watchers": r.cfg.Watchers, "rate": r.cfg.Rate, "duration": r.cfg.Duration.String()}

	wctx, stopWatchers := context.WithCancel(ctx)
	defer stopWatchers()
	arrivals := make([][]arrival, r.cfg.Watchers)
	var errs ErrorCounts
	var events atomic.Int64
	var started, running sync.WaitGroup
	for w := range arrivals {
		started.Add(1)
		running.Go(func() {
			r.watcher(wctx, head.ResourceVersion, &arrivals[w], &events, &errs, started.Done)
		})
	}
	started.Wait()
	if err := errs.First(); err != nil {
		stopWatchers()
		running.Wait()
		return fmt.Errorf("cannot watch: %w", err)
	}

	m := r.begin("watch", "watch", params)
	writes, elapsed := r.writer(ctx, &errs)
	// Wait for the watchers to catch up, up to the grace period.
	want := int64(len(writes)) * int64(r.cfg.Watchers)
	deadline := time.Now().Add(r.cfg.WatchGrace)
	for events.Load() < want && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	stopWatchers()
	running.Wait()
	if err := ctx.Err(); err != nil {
		m.stopServer(0)
		return err
	}

	d := accountDelays(writes, arrivals)
	p := m.finish(int64(len(writes)), elapsed.Seconds(), &d.samples, &errs)
	p.Lost = &d.lost
	p.Extra = map[string]float64{"events": float64(d.received), "negativeDelays": float64(d.negative)}
	r.emit(p)
	return nil
}

// watcher watches the namespace from rv until ctx ends, recording every
// event's arrival, and watches again from the last event if the server
// closes the watch. started is called once the first watch is open.
func (r *Runner) watcher(ctx context.Context, rv string, out *[]arrival, events *atomic.Int64, errs *ErrorCounts, started func()) {
	var once sync.Once
	defer once.Do(started)
	cms := r.c.JSON.CoreV1().ConfigMaps(r.ns)
	// Only the run's objects: another ConfigMap of the namespace (the
	// kube-root-ca.crt a controller publishes into a new namespace) would
	// count as an event and end the wait for the writes' events early.
	selector := LabelKey + "=" + r.runID
	for ctx.Err() == nil {
		w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: rv, LabelSelector: selector})
		once.Do(started)
		if err != nil {
			if ctx.Err() == nil {
				errs.Add(err)
			}
			return
		}
		rv, err = drain(ctx, w, rv, out, events)
		w.Stop()
		if err != nil {
			errs.Add(err)
			return
		}
	}
}

// drain records the events of w until it closes or ctx ends, and returns
// the last resourceVersion seen (rv if none).
func drain(ctx context.Context, w watch.Interface, rv string, out *[]arrival, events *atomic.Int64) (string, error) {
	for {
		select {
		case <-ctx.Done():
			return rv, nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return rv, nil
			}
			at := time.Now()
			if ev.Type == watch.Error {
				return rv, apierrors.FromObject(ev.Object)
			}
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if !ok {
				continue
			}
			rv = cm.ResourceVersion
			*out = append(*out, arrival{key: eventKey(cm.Name, rv), at: at})
			events.Add(1)
		}
	}
}

// writer patches one object per tick at Rate for Duration, and returns
// the time each write's response was read, by event key.
func (r *Runner) writer(ctx context.Context, errs *ErrorCounts) (map[string]time.Time, time.Duration) {
	cms := r.c.JSON.CoreV1().ConfigMaps(r.ns)
	total := int64(r.cfg.Rate * r.cfg.Duration.Seconds())
	r.progress.Begin("watch", total)
	defer r.progress.End()
	writes := make(map[string]time.Time, total)
	// A write that changes nothing makes no event: every value is new.
	stamp := time.Now().UnixNano()
	tick := time.NewTicker(time.Duration(float64(time.Second) / r.cfg.Rate))
	defer tick.Stop()
	start := time.Now()
	end := time.NewTimer(r.cfg.Duration)
	defer end.Stop()
	for seq := 0; ; seq++ {
		select {
		case <-ctx.Done():
			return writes, time.Since(start)
		case <-end.C:
			return writes, time.Since(start)
		case <-tick.C:
		}
		patch := fmt.Appendf(nil, `{"data":{"seq":"%d-%d"}}`, stamp, seq)
		cm, err := cms.Patch(ctx, name(seq%r.cfg.Objects), types.MergePatchType, patch, metav1.PatchOptions{})
		at := time.Now()
		r.progress.Add(err)
		if err != nil {
			errs.Add(err)
			continue
		}
		writes[eventKey(cm.Name, cm.ResourceVersion)] = at
	}
}
