package job

import (
	"context"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
)

// syncCtx is one sync's view of a Job and its Pods.
type syncCtx struct {
	key         string
	job         *batchv1.Job
	pods        []*corev1.Pod
	active      []*corev1.Pod
	finished    *batchv1.JobCondition
	succeeded   int32
	failed      int32
	prevIx      intervals
	succIx      intervals
	failedIx    *intervals
	backoff     backoffRecord
	expectedRm  sets.Set[types.UID]
	uncSucc     sets.Set[types.UID]
	uncFail     sets.Set[types.UID]
	terminating int32
	ready       int32
}

// Sync brings one Job (namespace/name) towards its spec.
func (c *Controller) Sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	shared, err := c.jobs.Jobs(ns).Get(name)
	if apierrors.IsNotFound(err) {
		c.exp.forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	// A Job another controller manages is left to it, as upstream.
	if m := shared.Spec.ManagedBy; m != nil && *m != batchv1.JobControllerName {
		return nil
	}
	if finished(shared) {
		return nil
	}
	job := shared.DeepCopy()
	// The registry defaults these; a Job written without them is skipped.
	if job.Spec.Parallelism == nil || job.Spec.BackoffLimit == nil || (isIndexed(job) && job.Spec.Completions == nil) {
		return nil
	}
	pods, err := c.podsOf(ctx, job)
	if err != nil {
		return err
	}
	satisfied := c.exp.Satisfied(key)
	sc := c.newSyncCtx(key, job, pods)
	active := int32(len(sc.active))

	started := false
	if job.Status.StartTime == nil && !suspended(job) {
		now := metav1.NewTime(c.clock.Now())
		job.Status.StartTime = &now
		started = true
	}
	c.decideFinished(sc)

	var manageErr error
	suspendChanged := false
	if sc.finished != nil {
		deletedReady, deleted, err := c.deleteActive(ctx, job, sc.active, false)
		if deleted != active || !satisfied {
			// Not finished until every Pod is gone from the cache's view.
			sc.finished = nil
		}
		active -= deleted
		sc.terminating += deleted
		sc.ready -= deletedReady
		manageErr = err
	} else {
		managed := false
		if satisfied && job.DeletionTimestamp == nil {
			active, manageErr = c.manage(ctx, sc)
			managed = true
		}
		complete := false
		if job.Spec.Completions == nil {
			complete = sc.succeeded > 0 && active == 0
		} else {
			complete = sc.succeeded >= *job.Spec.Completions && active == 0
		}
		if complete {
			sc.finished = c.newCondition(batchv1.JobSuccessCriteriaMet, batchv1.JobReasonCompletionsReached, "Reached expected number of succeeded pods")
		} else if managed {
			suspendChanged = c.updateSuspended(job)
		}
	}
	needsUpdate := started || suspendChanged || active != job.Status.Active ||
		job.Status.Ready == nil || *job.Status.Ready != sc.ready ||
		job.Status.Terminating == nil || *job.Status.Terminating != sc.terminating
	job.Status.Active = active
	job.Status.Ready = &sc.ready
	job.Status.Terminating = &sc.terminating
	if err := c.trackStatus(ctx, sc, needsUpdate); err != nil {
		return err
	}
	return manageErr
}

func (c *Controller) newSyncCtx(key string, job *batchv1.Job, pods []*corev1.Pod) *syncCtx {
	sc := &syncCtx{key: key, job: job, pods: pods, expectedRm: c.exp.expectedFinalizerRemovals(key),
		uncSucc: sets.New[types.UID](), uncFail: sets.New[types.UID]()}
	if u := job.Status.UncountedTerminatedPods; u != nil {
		sc.uncSucc.Insert(u.Succeeded...)
		sc.uncFail.Insert(u.Failed...)
	}
	for _, p := range pods {
		terminal := p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		switch {
		case p.DeletionTimestamp != nil && !terminal:
			sc.terminating++
		case !terminal && p.DeletionTimestamp == nil:
			sc.active = append(sc.active, p)
			if podReady(p) {
				sc.ready++
			}
		}
	}
	newSucc, newFail := c.newFinished(sc)
	sc.succeeded = job.Status.Succeeded + int32(len(newSucc)) + int32(sc.uncSucc.Len())
	counted := 0
	for _, p := range newFail {
		if matchFailurePolicy(job.Spec.PodFailurePolicy, p).count {
			counted++
		}
	}
	sc.failed = job.Status.Failed + int32(counted) + int32(sc.uncFail.Len())
	c.backoffMu.Lock()
	sc.backoff = c.backoff[key].next(c.clock, newSucc, newFail)
	c.backoffMu.Unlock()
	return sc
}

// newFinished are the finished Pods still carrying their finalizer and
// not yet in uncountedTerminatedPods.
func (c *Controller) newFinished(sc *syncCtx) (succeeded, failed []*corev1.Pod) {
	for _, p := range sc.pods {
		if !hasFinalizer(p) || sc.uncSucc.Has(p.UID) || sc.uncFail.Has(p.UID) || sc.expectedRm.Has(p.UID) {
			continue
		}
		if isIndexed(sc.job) && !validIndex(sc.job, p) {
			continue
		}
		if p.Status.Phase == corev1.PodSucceeded {
			succeeded = append(succeeded, p)
		} else if podFailed(p, sc.job) {
			failed = append(failed, p)
		}
	}
	return succeeded, failed
}

// decideFinished sets sc.finished when the Job has met its end: a pod
// failure policy FailJob rule, the back-off limit, its deadline, failed
// indexes or its success policy.
func (c *Controller) decideFinished(sc *syncCtx) {
	job := sc.job
	sc.finished = trueCondition(job, batchv1.JobSuccessCriteriaMet)
	if sc.finished == nil {
		if ft := trueCondition(job, batchv1.JobFailureTarget); ft != nil {
			sc.finished = c.newCondition(batchv1.JobFailed, ft.Reason, ft.Message)
		} else if msg := failJobMessage(job, sc.pods); msg != nil {
			sc.finished = c.newCondition(batchv1.JobFailureTarget, batchv1.JobReasonPodFailurePolicy, *msg)
		}
	}
	if sc.finished == nil {
		switch {
		case sc.failed > *job.Spec.BackoffLimit || pastBackoffLimitOnFailure(job, sc.pods):
			sc.finished = c.newCondition(batchv1.JobFailureTarget, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")
		case c.pastDeadline(job):
			sc.finished = c.newCondition(batchv1.JobFailureTarget, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline")
		case job.Spec.ActiveDeadlineSeconds != nil && !suspended(job):
			left := time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second - c.clock.Since(job.Status.StartTime.Time)
			c.queue.AddAfter(sc.key, left)
		}
	}
	if !isIndexed(job) {
		return
	}
	completions := int(*job.Spec.Completions)
	sc.prevIx = parseIndexes(job.Status.CompletedIndexes, completions)
	var ixs []int
	for _, p := range sc.pods {
		if p.Status.Phase == corev1.PodSucceeded && validIndex(job, p) {
			ixs = append(ixs, completionIndex(p))
		}
	}
	sc.succIx = sc.prevIx.with(ixs)
	sc.succeeded = int32(sc.succIx.total())
	if job.Spec.BackoffLimitPerIndex != nil {
		c.decideFailedIndexes(sc)
	}
	if sc.finished == nil {
		if msg, ok := matchSuccessPolicy(job.Spec.SuccessPolicy, *job.Spec.Completions, sc.succIx); ok {
			sc.finished = c.newCondition(batchv1.JobSuccessCriteriaMet, batchv1.JobReasonSuccessPolicy, msg)
		}
	}
}

func (c *Controller) pastDeadline(job *batchv1.Job) bool {
	if job.Spec.ActiveDeadlineSeconds == nil || job.Status.StartTime == nil || suspended(job) {
		return false
	}
	return c.clock.Since(job.Status.StartTime.Time) >= time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second
}

// pastBackoffLimitOnFailure: with restartPolicy OnFailure the kubelet
// restarts containers in place, so their restart counts are the failures.
func pastBackoffLimitOnFailure(job *batchv1.Job, pods []*corev1.Pod) bool {
	if job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		return false
	}
	var restarts int32
	for _, p := range pods {
		if p.Status.Phase != corev1.PodRunning && p.Status.Phase != corev1.PodPending {
			continue
		}
		for _, cs := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
			restarts += cs.RestartCount
		}
	}
	if *job.Spec.BackoffLimit == 0 {
		return restarts > 0
	}
	return restarts >= *job.Spec.BackoffLimit
}

func failJobMessage(job *batchv1.Job, pods []*corev1.Pod) *string {
	if job.Spec.PodFailurePolicy == nil {
		return nil
	}
	for _, p := range pods {
		if podFailed(p, job) {
			if m := matchFailurePolicy(job.Spec.PodFailurePolicy, p); m.failJob != nil {
				return m.failJob
			}
		}
	}
	return nil
}

// updateSuspended keeps the Suspended condition in step with
// spec.suspend; resuming restarts the deadline clock.
func (c *Controller) updateSuspended(job *batchv1.Job) bool {
	if suspended(job) {
		if setCondition(job, c.newCondition(batchv1.JobSuspended, "JobSuspended", "Job suspended"), corev1.ConditionTrue) {
			c.recorder.Eventf(job, nil, corev1.EventTypeNormal, "Suspended", "Suspend", "Job suspended")
			return true
		}
		return false
	}
	if setCondition(job, c.newCondition(batchv1.JobSuspended, "JobResumed", "Job resumed"), corev1.ConditionFalse) {
		c.recorder.Eventf(job, nil, corev1.EventTypeNormal, "Resumed", "Resume", "Job resumed")
		now := metav1.NewTime(c.clock.Now())
		job.Status.StartTime = &now
		return true
	}
	return false
}

func suspended(job *batchv1.Job) bool { return job.Spec.Suspend != nil && *job.Spec.Suspend }

// onlyReplaceFailed: terminating Pods are not replaced (and not counted
// as failed) until they reach the Failed phase.
func onlyReplaceFailed(job *batchv1.Job) bool {
	if p := job.Spec.PodReplacementPolicy; p != nil && *p == batchv1.Failed {
		return true
	}
	return job.Spec.PodFailurePolicy != nil
}

// podFailed: phase Failed, or (unless only failed Pods are replaced) a
// deleted Pod that did not succeed.
func podFailed(p *corev1.Pod, job *batchv1.Job) bool {
	if p.Status.Phase == corev1.PodFailed {
		return true
	}
	if onlyReplaceFailed(job) {
		return false
	}
	return p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func (c *Controller) newCondition(typ batchv1.JobConditionType, reason, message string) *batchv1.JobCondition {
	now := metav1.NewTime(c.clock.Now())
	return &batchv1.JobCondition{Type: typ, Status: corev1.ConditionTrue, Reason: reason, Message: message, LastProbeTime: now, LastTransitionTime: now}
}

func trueCondition(job *batchv1.Job, typ batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		if c := &job.Status.Conditions[i]; c.Type == typ && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// setCondition puts cond with status into the Job's conditions; a
// condition absent is not added as False. It reports a change.
func setCondition(job *batchv1.Job, cond *batchv1.JobCondition, status corev1.ConditionStatus) bool {
	cond.Status = status
	for i := range job.Status.Conditions {
		old := &job.Status.Conditions[i]
		if old.Type != cond.Type {
			continue
		}
		if old.Status == status && old.Reason == cond.Reason && old.Message == cond.Message {
			return false
		}
		*old = *cond
		return true
	}
	if status == corev1.ConditionFalse {
		return false
	}
	job.Status.Conditions = append(job.Status.Conditions, *cond)
	return true
}
