package workload

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/internal/bench/stats"
)

// listPhase is one way of listing the namespace.
type listPhase struct {
	name   string
	client func(*Clients) kubernetes.Interface
	opts   metav1.ListOptions
}

func (r *Runner) listPhases() []listPhase {
	jsonClient := func(c *Clients) kubernetes.Interface { return c.JSON }
	return []listPhase{
		{"list/json", jsonClient, metav1.ListOptions{}},
		{"list/protobuf", func(c *Clients) kubernetes.Interface { return c.Protobuf }, metav1.ListOptions{}},
		{"list/rv0", jsonClient, metav1.ListOptions{ResourceVersion: "0"}},
		{"list/paged", jsonClient, metav1.ListOptions{Limit: r.cfg.PageSize}},
	}
}

// list measures each way of listing the namespace ListRepeats times and
// reports the median seconds and the bytes of one list.
func (r *Runner) list(ctx context.Context) error {
	if err := r.ensureObjects(ctx); err != nil {
		return err
	}
	for _, lp := range r.listPhases() {
		if err := r.measureList(ctx, lp); err != nil {
			return err
		}
	}
	return nil
}

func (r *Runner) measureList(ctx context.Context, lp listPhase) error {
	params := map[string]any{"objects": r.cfg.Objects, "size": r.cfg.Size, "repeats": r.cfg.ListRepeats}
	if lp.opts.Limit > 0 {
		params["limit"] = lp.opts.Limit
	}
	m := r.begin("list", lp.name, params)
	r.progress.Begin(lp.name, int64(r.cfg.ListRepeats))
	var (
		lat   stats.Samples
		errs  ErrorCounts
		times []time.Duration
		bytes int64
		items int
		pages int
	)
	for range r.cfg.ListRepeats {
		before := r.c.Bytes.Load()
		t0 := time.Now()
		n, p, err := listAll(ctx, lp.client(r.c), r.ns, lp.opts)
		d := time.Since(t0)
		r.progress.Add(err)
		if err != nil {
			errs.Add(err)
			continue
		}
		lat.Record(d)
		times = append(times, d)
		bytes, items, pages = r.c.Bytes.Load()-before, n, p
	}
	r.progress.End()
	if err := ctx.Err(); err != nil {
		m.stopServer(0)
		return err
	}
	p := m.finish(int64(len(times)), stats.Median(times).Seconds(), &lat, &errs)
	// Seconds is the median of one list, so ops/s would mislead.
	p.OpsPerSec = 0
	p.Bytes = bytes
	p.Extra = map[string]float64{"items": float64(items), "pages": float64(pages)}
	r.emit(p)
	return nil
}

// listAll lists the namespace, following continue tokens, and returns the
// items and pages read.
func listAll(ctx context.Context, cs kubernetes.Interface, ns string, opts metav1.ListOptions) (items, pages int, err error) {
	for {
		list, err := cs.CoreV1().ConfigMaps(ns).List(ctx, opts)
		if err != nil {
			return items, pages, err
		}
		items += len(list.Items)
		pages++
		if opts.Continue = list.Continue; opts.Continue == "" || opts.Limit == 0 {
			return items, pages, nil
		}
	}
}
