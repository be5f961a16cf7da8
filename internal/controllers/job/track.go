package job

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

// trackStatus counts finished Pods as upstream does, in three steps that
// survive a crash between any two: record their UIDs in
// status.uncountedTerminatedPods, remove their finalizers, then move them
// from the uncounted lists into the counters. Once nothing is uncounted
// nor terminating, an interim FailureTarget or SuccessCriteriaMet
// becomes Failed or Complete.
func (c *Controller) trackStatus(ctx context.Context, sc *syncCtx, needsFlush bool) error {
	job := sc.job
	if job.Status.UncountedTerminatedPods == nil {
		job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
		needsFlush = true
	}
	unc := job.Status.UncountedTerminatedPods
	indexed := isIndexed(job)
	if indexed {
		sort.SliceStable(sc.pods, func(a, b int) bool { return completionIndex(sc.pods[a]) < completionIndex(sc.pods[b]) })
	}
	withFin := sets.New[types.UID]()
	for _, p := range sc.pods {
		if hasFinalizer(p) && !sc.expectedRm.Has(p.UID) {
			withFin.Insert(p.UID)
		}
	}
	if countRemoved(&job.Status, withFin) {
		needsFlush = true
	}
	toRemove, newIx, full := collectFinished(sc, unc, &needsFlush)
	if indexed {
		updateIndexStatus(sc, newIx, &needsFlush)
	}
	c.interimCondition(sc, &needsFlush)
	needsFlush, err := c.flushAndRemove(ctx, sc, toRemove, withFin, needsFlush)
	if err != nil {
		return err
	}
	done := !full && c.enactFinished(sc)
	if done || needsFlush {
		updated, err := c.client.BatchV1().Jobs(sc.job.Namespace).UpdateStatus(ctx, sc.job, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		sc.job = updated
		if done {
			c.recordFinished(updated, sc.finished)
		}
	}
	return nil
}

// collectFinished picks the Pods whose finalizer can go (finished ones,
// or all when the Job ends or is deleted) and records the newly finished
// in the uncounted lists (succeeded indexes for Indexed Jobs), at most
// maxUncountedPods at a time; full says the cap was hit.
func collectFinished(sc *syncCtx, unc *batchv1.UncountedTerminatedPods, needsFlush *bool) (toRemove []*corev1.Pod, newIx []int, full bool) {
	job, indexed := sc.job, isIndexed(sc.job)
	for _, p := range sc.pods {
		if !hasFinalizer(p) || sc.expectedRm.Has(p.UID) {
			continue
		}
		failed := podFailed(p, job)
		if !(job.DeletionTimestamp != nil || sc.finished != nil || p.Status.Phase == corev1.PodSucceeded || failed) {
			continue
		}
		toRemove = append(toRemove, p)
		if p.Status.Phase == corev1.PodSucceeded && !sc.uncFail.Has(p.UID) {
			if indexed {
				if ix := completionIndex(p); validIndex(job, p) && !sc.prevIx.has(ix) {
					newIx = append(newIx, ix)
					*needsFlush = true
				}
			} else if !sc.uncSucc.Has(p.UID) {
				unc.Succeeded = append(unc.Succeeded, p.UID)
				*needsFlush = true
			}
		} else if failed || (sc.finished != nil && sc.finished.Type != batchv1.JobSuccessCriteriaMet) {
			// A Job that ends fails every Pod it has not seen finish.
			if !sc.uncFail.Has(p.UID) && (!indexed || validIndex(job, p)) && matchFailurePolicy(job.Spec.PodFailurePolicy, p).count {
				unc.Failed = append(unc.Failed, p.UID)
				*needsFlush = true
			}
		}
		if len(newIx)+len(unc.Succeeded)+len(unc.Failed) >= maxUncountedPods {
			full = true
			break
		}
	}
	return toRemove, newIx, full
}

// updateIndexStatus writes completedIndexes, succeeded and failedIndexes
// of an Indexed Job.
func updateIndexStatus(sc *syncCtx, newIx []int, needsFlush *bool) {
	job := sc.job
	sc.succIx = sc.succIx.with(newIx)
	if s := sc.succIx.String(); s != job.Status.CompletedIndexes {
		job.Status.CompletedIndexes = s
		*needsFlush = true
	}
	job.Status.Succeeded = int32(sc.succIx.total())
	var failedStr *string
	if sc.failedIx != nil {
		s := sc.failedIx.String()
		failedStr = &s
	}
	if (failedStr == nil) != (job.Status.FailedIndexes == nil) || (failedStr != nil && *failedStr != *job.Status.FailedIndexes) {
		job.Status.FailedIndexes = failedStr
		*needsFlush = true
	}
}

// interimCondition writes FailureTarget or SuccessCriteriaMet before any
// finalizer goes, and prepares the terminal condition that follows.
func (c *Controller) interimCondition(sc *syncCtx, needsFlush *bool) {
	job, f := sc.job, sc.finished
	if f == nil {
		return
	}
	switch f.Type {
	case batchv1.JobFailureTarget:
		job.Status.Conditions = append(job.Status.Conditions, *f)
		*needsFlush = true
		sc.finished = c.newCondition(batchv1.JobFailed, f.Reason, f.Message)
	case batchv1.JobSuccessCriteriaMet:
		if trueCondition(job, batchv1.JobSuccessCriteriaMet) == nil {
			job.Status.Conditions = append(job.Status.Conditions, *f)
			*needsFlush = true
		}
		sc.finished = c.newCondition(batchv1.JobComplete, f.Reason, f.Message)
	}
}

// flushAndRemove writes the uncounted UIDs, removes the finalizers, and
// folds the Pods whose finalizer is gone into the counters.
func (c *Controller) flushAndRemove(ctx context.Context, sc *syncCtx, pods []*corev1.Pod, withFin sets.Set[types.UID], needsFlush bool) (bool, error) {
	if needsFlush {
		updated, err := c.client.BatchV1().Jobs(sc.job.Namespace).UpdateStatus(ctx, sc.job, metav1.UpdateOptions{})
		if err != nil {
			return true, err
		}
		sc.job = updated
		c.backoffMu.Lock()
		c.backoff[sc.key] = sc.backoff
		c.backoffMu.Unlock()
		needsFlush = false
	}
	var rmErr error
	if len(pods) > 0 {
		uids := make([]types.UID, len(pods))
		for i, p := range pods {
			uids[i] = p.UID
		}
		c.exp.expectFinalizersRemoved(sc.key, uids)
		var mu sync.Mutex
		var errs []error
		var wg sync.WaitGroup
		for _, p := range pods {
			wg.Go(func() {
				err := c.removeFinalizer(ctx, p)
				if err != nil {
					c.exp.finalizerRemovalObserved(sc.key, p.UID)
					if !apierrors.IsNotFound(err) {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
						return
					}
				}
				mu.Lock()
				withFin.Delete(p.UID)
				mu.Unlock()
			})
		}
		wg.Wait()
		rmErr = errors.Join(errs...)
	}
	if countRemoved(&sc.job.Status, withFin) {
		needsFlush = true
	}
	if rmErr != nil && needsFlush {
		if updated, err := c.client.BatchV1().Jobs(sc.job.Namespace).UpdateStatus(ctx, sc.job, metav1.UpdateOptions{}); err == nil {
			sc.job = updated
		}
	}
	return needsFlush, rmErr
}

// countRemoved moves uncounted UIDs whose Pod no longer has a finalizer
// into the succeeded and failed counters.
func countRemoved(status *batchv1.JobStatus, withFin sets.Set[types.UID]) bool {
	u := status.UncountedTerminatedPods
	if u == nil {
		return false
	}
	keep := func(uids []types.UID) []types.UID {
		var out []types.UID
		for _, uid := range uids {
			if withFin.Has(uid) {
				out = append(out, uid)
			}
		}
		return out
	}
	changed := false
	if k := keep(u.Succeeded); len(k) != len(u.Succeeded) {
		status.Succeeded += int32(len(u.Succeeded) - len(k))
		u.Succeeded, changed = k, true
	}
	if k := keep(u.Failed); len(k) != len(u.Failed) {
		status.Failed += int32(len(u.Failed) - len(k))
		u.Failed, changed = k, true
	}
	return changed
}

// enactFinished adds the terminal condition once every finished Pod is
// counted and none is terminating.
func (c *Controller) enactFinished(sc *syncCtx) bool {
	f := sc.finished
	if f == nil {
		return false
	}
	if u := sc.job.Status.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
		return false
	}
	if sc.terminating > 0 {
		return false
	}
	setCondition(sc.job, c.newCondition(f.Type, f.Reason, f.Message), corev1.ConditionTrue)
	if f.Type == batchv1.JobComplete {
		t := metav1.NewTime(c.clock.Now())
		sc.job.Status.CompletionTime = &t
	}
	return true
}

func (c *Controller) recordFinished(job *batchv1.Job, f *batchv1.JobCondition) {
	if f.Type == batchv1.JobComplete {
		if job.Spec.Completions != nil && job.Status.Succeeded > *job.Spec.Completions {
			c.recorder.Eventf(job, nil, corev1.EventTypeWarning, "TooManySucceededPods", "Sync", "Too many succeeded pods running after completion count reached")
		}
		c.recorder.Eventf(job, nil, corev1.EventTypeNormal, "Completed", "Sync", "Job completed")
		return
	}
	c.recorder.Eventf(job, nil, corev1.EventTypeWarning, f.Reason, "Sync", f.Message)
}

// decideFailedIndexes computes status.failedIndexes for a Job with
// backoffLimitPerIndex and fails the Job when too many indexes failed or
// every index is either succeeded or failed.
func (c *Controller) decideFailedIndexes(sc *syncCtx) {
	job := sc.job
	completions := int(*job.Spec.Completions)
	prev := ""
	if job.Status.FailedIndexes != nil {
		prev = *job.Status.FailedIndexes
	}
	var ixs []int
	for _, p := range sc.pods {
		if !podFailed(p, job) || !validIndex(job, p) {
			continue
		}
		m := matchFailurePolicy(job.Spec.PodFailurePolicy, p)
		if m.action != nil && *m.action == batchv1.PodFailurePolicyActionFailIndex {
			ixs = append(ixs, completionIndex(p))
		} else if m.count && annotationInt(p, batchv1.JobIndexFailureCountAnnotation)+1 > int(*job.Spec.BackoffLimitPerIndex) {
			ixs = append(ixs, completionIndex(p))
		}
	}
	failed := parseIndexes(prev, completions).with(ixs)
	sc.failedIx = &failed
	if sc.finished != nil {
		return
	}
	if m := job.Spec.MaxFailedIndexes; m != nil && failed.total() > int(*m) {
		sc.finished = c.newCondition(batchv1.JobFailureTarget, batchv1.JobReasonMaxFailedIndexesExceeded, "Job has exceeded the specified maximal number of failed indexes")
	} else if failed.total() > 0 && failed.total()+sc.succIx.total() >= completions {
		sc.finished = c.newCondition(batchv1.JobFailureTarget, batchv1.JobReasonFailedIndexes, "Job has failed indexes")
	}
}

// indexFailures are the counted and ignored failures of index ix so far:
// the highest the index's failed Pods carry, plus their own.
func indexFailures(job *batchv1.Job, pods []*corev1.Pod, ix int) (counted, ignored int) {
	for _, p := range pods {
		if completionIndex(p) != ix || !podFailed(p, job) {
			continue
		}
		c := annotationInt(p, batchv1.JobIndexFailureCountAnnotation)
		i := annotationInt(p, batchv1.JobIndexIgnoredFailureCountAnnotation)
		if matchFailurePolicy(job.Spec.PodFailurePolicy, p).count {
			c++
		} else {
			i++
		}
		counted, ignored = max(counted, c), max(ignored, i)
	}
	return counted, ignored
}

func annotationInt(p *corev1.Pod, key string) int {
	n, err := strconv.Atoi(p.Annotations[key])
	if err != nil || n < 0 {
		return 0
	}
	return n
}
