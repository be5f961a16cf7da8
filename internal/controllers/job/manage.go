package job

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// manage creates or deletes Pods so that the active ones match what the
// Job wants now, and returns the new active count.
func (c *Controller) manage(ctx context.Context, sc *syncCtx) (int32, error) {
	job := sc.job
	active := int32(len(sc.active))
	if suspended(job) {
		c.exp.ExpectCounts(sc.key, 0, len(sc.active))
		ready, removed, err := c.deleteActive(ctx, job, sc.active, true)
		sc.terminating += removed
		sc.ready -= ready
		return active - removed, err
	}
	want := *job.Spec.Parallelism
	if job.Spec.Completions == nil {
		if sc.succeeded > 0 {
			want = active
		}
	} else {
		want = min(max(*job.Spec.Completions-sc.succeeded, 0), want)
	}
	if rm := removalCandidates(job, sc.active, int(max(active-want, 0))); len(rm) > 0 {
		if len(rm) > maxCreatePerSync {
			rm = rm[:maxCreatePerSync]
		}
		c.exp.ExpectCounts(sc.key, 0, len(rm))
		ready, removed, err := c.deleteActive(ctx, job, rm, true)
		sc.terminating += removed
		sc.ready -= ready
		return active - removed, err
	}
	var terminating int32
	if onlyReplaceFailed(job) {
		terminating = sc.terminating
	}
	diff := want - terminating - active
	if diff <= 0 {
		return active, nil
	}
	// With a per-index limit each index backs off on its own.
	if job.Spec.BackoffLimitPerIndex == nil {
		if left := sc.backoff.remaining(c.clock); left > 0 {
			c.queue.AddAfter(sc.key, left)
			return active, nil
		}
	}
	diff = min(diff, maxCreatePerSync)
	var indexes []int
	if isIndexed(job) {
		var failed intervals
		if sc.failedIx != nil {
			failed = *sc.failedIx
		}
		indexes = pendingIndexes(job, sc.active, sc.succIx, failed, int(diff))
		if job.Spec.BackoffLimitPerIndex != nil {
			var wait time.Duration
			if indexes, wait = c.indexesPastBackoff(job, sc.pods, indexes); len(indexes) == 0 {
				c.queue.AddAfter(sc.key, wait)
				return active, nil
			}
		}
		diff = int32(len(indexes))
	}
	created, err := c.createPods(ctx, sc, int(diff), indexes)
	return active + int32(created), err
}

// createPods creates n Pods in slow-start batches (1, 2, 4, ...): a batch
// that fails stops the rest, so a quota error does not become n errors.
func (c *Controller) createPods(ctx context.Context, sc *syncCtx, n int, indexes []int) (int, error) {
	job := sc.job
	template := job.Spec.Template.DeepCopy()
	if isIndexed(job) {
		addIndexEnv(template)
	}
	if !hasString(template.Finalizers, batchv1.JobTrackingFinalizer) {
		template.Finalizers = append(template.Finalizers, batchv1.JobTrackingFinalizer)
	}
	c.exp.ExpectCounts(sc.key, n, 0)
	var created atomic.Int32
	var errs []error
	var mu sync.Mutex
	for batch, done := min(slowStartInitial, n), 0; done < n; batch = min(2*batch, n-done) {
		var wg sync.WaitGroup
		failed := false
		for k := range batch {
			t, gen := template, job.Name+"-"
			if indexes != nil {
				ix := indexes[done+k]
				t = indexedTemplate(template, job, ix, sc)
				gen = indexedGenerateName(job.Name, ix)
			}
			wg.Go(func() {
				err := c.createPod(ctx, job, t, gen)
				if err == nil {
					created.Add(1)
					return
				}
				c.exp.Observed(sc.key, 1, 0)
				if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
					return
				}
				mu.Lock()
				errs, failed = append(errs, err), true
				mu.Unlock()
			})
		}
		wg.Wait()
		done += batch
		if failed {
			c.exp.Observed(sc.key, n-done, 0)
			break
		}
	}
	return int(created.Load()), errors.Join(errs...)
}

// indexedTemplate is the template of index ix: its annotation and label,
// hostname <job>-<ix>, and with a per-index back-off limit the failure
// count carried over from the index's earlier Pods.
func indexedTemplate(base *corev1.PodTemplateSpec, job *batchv1.Job, ix int, sc *syncCtx) *corev1.PodTemplateSpec {
	t := base.DeepCopy()
	if t.Annotations == nil {
		t.Annotations = map[string]string{}
	}
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	t.Annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(ix)
	t.Labels[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(ix)
	t.Spec.Hostname = fmt.Sprintf("%s-%d", job.Name, ix)
	if job.Spec.BackoffLimitPerIndex != nil {
		counted, ignored := indexFailures(job, sc.pods, ix)
		t.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(counted)
		if ignored > 0 {
			t.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(ignored)
		}
	}
	return t
}

// addIndexEnv gives every container JOB_COMPLETION_INDEX from the Pod's
// index annotation, unless it sets the variable itself.
func addIndexEnv(t *corev1.PodTemplateSpec) {
	env := corev1.EnvVar{Name: "JOB_COMPLETION_INDEX", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
		FieldPath: fmt.Sprintf("metadata.annotations['%s']", batchv1.JobCompletionIndexAnnotation)}}}
	for _, list := range [][]corev1.Container{t.Spec.InitContainers, t.Spec.Containers} {
		for i := range list {
			has := false
			for _, e := range list[i].Env {
				has = has || e.Name == env.Name
			}
			if !has {
				list[i].Env = append(list[i].Env, env)
			}
		}
	}
}

// deleteActive deletes Pods in parallel; withFinalizer also removes the
// tracking finalizer first (a Pod removed on purpose is not a failure).
// It returns how many ready and how many Pods in all were deleted.
func (c *Controller) deleteActive(ctx context.Context, job *batchv1.Job, pods []*corev1.Pod, removeFinalizer bool) (int32, int32, error) {
	var ready, deleted atomic.Int32
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, p := range pods {
		wg.Go(func() {
			err := error(nil)
			if removeFinalizer && hasFinalizer(p) {
				err = c.removeFinalizer(ctx, p)
			}
			if err == nil {
				err = c.pods.DeletePod(ctx, p.Namespace, p.Name, job)
			}
			if err != nil && !apierrors.IsNotFound(err) {
				if removeFinalizer {
					c.exp.Observed(keyOf(job), 0, 1)
				}
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return
			}
			deleted.Add(1)
			if podReady(p) {
				ready.Add(1)
			}
		})
	}
	wg.Wait()
	return ready.Load(), deleted.Load(), errors.Join(errs...)
}

func keyOf(job *batchv1.Job) string { return job.Namespace + "/" + job.Name }

// removalCandidates picks at least n active Pods to delete, Pods of
// duplicate or invalid indexes first, then the least far along:
// unscheduled before scheduled, pending before running, not ready before
// ready, newer before older.
func removalCandidates(job *batchv1.Job, active []*corev1.Pod, n int) []*corev1.Pod {
	var rm, left []*corev1.Pod
	if isIndexed(job) {
		rm, left = duplicateIndexPods(job, active)
	} else {
		left = append([]*corev1.Pod(nil), active...)
	}
	if len(rm) >= n {
		return rm
	}
	rank := func(p *corev1.Pod) int {
		r := 0
		if p.Spec.NodeName != "" {
			r += 4
		}
		if p.Status.Phase == corev1.PodRunning {
			r += 2
		}
		if podReady(p) {
			r++
		}
		return r
	}
	sort.SliceStable(left, func(a, b int) bool {
		if ra, rb := rank(left[a]), rank(left[b]); ra != rb {
			return ra < rb
		}
		return left[b].CreationTimestamp.Before(&left[a].CreationTimestamp)
	})
	return append(rm, left[:n-len(rm)]...)
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// indexesPastBackoff keeps the indexes whose own back-off (10s doubling
// per counted failure of the index, at most 10 minutes, from its last
// failure) has passed; with none, it returns the shortest wait.
func (c *Controller) indexesPastBackoff(job *batchv1.Job, pods []*corev1.Pod, indexes []int) ([]int, time.Duration) {
	var ready []int
	var wait time.Duration
	for _, ix := range indexes {
		counted, _ := indexFailures(job, pods, ix)
		var last *time.Time
		for _, p := range pods {
			if completionIndex(p) == ix && podFailed(p, job) {
				if t := finishTime(c.clock, p); last == nil || t.After(*last) {
					last = &t
				}
			}
		}
		left := backoffRecord{failuresAfterLastSuccess: counted, lastFailureTime: last}.remaining(c.clock)
		if left <= 0 {
			ready = append(ready, ix)
		} else if wait == 0 || left < wait {
			wait = left
		}
	}
	return ready, wait
}

// maxGeneratedNameLength is how much of a generateName the server keeps
// before its random suffix.
const maxGeneratedNameLength = 58

// indexedGenerateName is <job>-<index>-, the Job's name shortened so the
// server's truncation never cuts the index off.
func indexedGenerateName(job string, ix int) string {
	suffix := "-" + strconv.Itoa(ix) + "-"
	if len(job)+len(suffix) > maxGeneratedNameLength {
		job = job[:maxGeneratedNameLength-len(suffix)]
	}
	return job + suffix
}
