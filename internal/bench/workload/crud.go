package workload

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/bench/stats"
)

// poolResult is what a pool of workers measured.
type poolResult struct {
	ops     int64 // successful operations
	elapsed time.Duration
	lat     stats.Samples
	errs    ErrorCounts
}

// pool runs op for indices 0..n-1 with the configured workers pulling
// indices from a channel, timing every call.
func (r *Runner) pool(ctx context.Context, label string, n int, op func(context.Context, int) error) *poolResult {
	res := &poolResult{}
	r.progress.Begin(label, int64(n))
	defer r.progress.End()
	idx := make(chan int)
	var okOps sync.WaitGroup
	var mu sync.Mutex
	start := time.Now()
	for range r.cfg.Workers {
		okOps.Go(func() {
			var local int64
			for i := range idx {
				t0 := time.Now()
				err := op(ctx, i)
				d := time.Since(t0)
				r.progress.Add(err)
				if err != nil {
					res.errs.Add(err)
					continue
				}
				res.lat.Record(d)
				local++
			}
			mu.Lock()
			res.ops += local
			mu.Unlock()
		})
	}
feed:
	for i := range n {
		select {
		case idx <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(idx)
	okOps.Wait()
	res.elapsed = time.Since(start)
	return res
}

// measurePool runs a pool as the phase named like the workload.
func (r *Runner) measurePool(ctx context.Context, workload string, op func(context.Context, int) error) error {
	m := r.begin(workload, workload, r.crudParams())
	res := r.pool(ctx, workload, r.cfg.Objects, op)
	p := m.finish(res.ops, res.elapsed.Seconds(), &res.lat, &res.errs)
	if err := ctx.Err(); err != nil {
		return err
	}
	r.emit(p)
	if res.ops == 0 && res.errs.Total() > 0 {
		return fmt.Errorf("every operation failed, the first with: %w", res.errs.First())
	}
	return nil
}

// setup runs a pool unmeasured and fails if any operation failed.
func (r *Runner) setup(ctx context.Context, label string, op func(context.Context, int) error) error {
	res := r.pool(ctx, "setup: "+label, r.cfg.Objects, op)
	if err := ctx.Err(); err != nil {
		return err
	}
	if n := res.errs.Total(); n > 0 {
		return fmt.Errorf("setup (%s): %d of %d operations failed, the first with: %w", label, n, r.cfg.Objects, res.errs.First())
	}
	return nil
}

func (r *Runner) createOp(ctx context.Context, i int) error {
	_, err := r.c.JSON.CoreV1().ConfigMaps(r.ns).Create(ctx, r.object(i), metav1.CreateOptions{})
	return err
}

func (r *Runner) deleteOp(ctx context.Context, i int) error {
	return r.c.JSON.CoreV1().ConfigMaps(r.ns).Delete(ctx, name(i), metav1.DeleteOptions{})
}

// ensureObjects creates the objects, unmeasured, unless they exist.
func (r *Runner) ensureObjects(ctx context.Context) error {
	if r.have {
		return nil
	}
	if err := r.setup(ctx, "create", r.createOp); err != nil {
		return err
	}
	r.have = true
	return nil
}

func (r *Runner) create(ctx context.Context) error {
	if r.have {
		// A second create measures creates, not conflicts.
		if err := r.setup(ctx, "delete", r.deleteOp); err != nil {
			return err
		}
		r.have = false
	}
	err := r.measurePool(ctx, "create", r.createOp)
	r.have = err == nil
	return err
}

func (r *Runner) get(ctx context.Context) error {
	if err := r.ensureObjects(ctx); err != nil {
		return err
	}
	return r.measurePool(ctx, "get", func(ctx context.Context, i int) error {
		_, err := r.c.JSON.CoreV1().ConfigMaps(r.ns).Get(ctx, name(i), metav1.GetOptions{})
		return err
	})
}

func (r *Runner) delete(ctx context.Context) error {
	if err := r.ensureObjects(ctx); err != nil {
		return err
	}
	err := r.measurePool(ctx, "delete", r.deleteOp)
	r.have = false
	return err
}

// update replaces every object once, from a copy read unmeasured first so
// that its resourceVersion is current (other workloads change them).
func (r *Runner) update(ctx context.Context) error {
	if err := r.ensureObjects(ctx); err != nil {
		return err
	}
	current, err := r.currentObjects(ctx)
	if err != nil {
		return err
	}
	// A write that changes nothing is not an update: every value is new.
	stamp := strconv.FormatInt(time.Now().UnixNano(), 10)
	return r.measurePool(ctx, "update", func(ctx context.Context, i int) error {
		cm := current[i]
		if cm == nil {
			return apierrors.NewNotFound(corev1.Resource("configmaps"), name(i))
		}
		cm = cm.DeepCopy()
		cm.Data["seq"] = stamp + "-" + strconv.Itoa(i)
		_, err := r.c.JSON.CoreV1().ConfigMaps(r.ns).Update(ctx, cm, metav1.UpdateOptions{})
		return err
	})
}

// currentObjects lists the run's objects, indexed by their number.
func (r *Runner) currentObjects(ctx context.Context) ([]*corev1.ConfigMap, error) {
	out := make([]*corev1.ConfigMap, r.cfg.Objects)
	opts := metav1.ListOptions{LabelSelector: LabelKey + "=" + r.runID, Limit: r.cfg.PageSize}
	for {
		list, err := r.c.JSON.CoreV1().ConfigMaps(r.ns).List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("setup (list): %w", err)
		}
		for i := range list.Items {
			cm := &list.Items[i]
			var n int
			if _, err := fmt.Sscanf(cm.Name, "cm-%d", &n); err == nil && n >= 0 && n < len(out) {
				if cm.Data == nil {
					cm.Data = map[string]string{}
				}
				out[n] = cm
			}
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			return out, nil
		}
	}
}
