// Package cronjob is kube-controller-manager's cronjob-controller run
// in-process: it creates a Job for each scheduled time of a CronJob
// (standard cron syntax, descriptors such as @hourly, spec.timeZone),
// honours concurrencyPolicy, startingDeadlineSeconds, suspend and the
// history limits, keeps status.active, lastScheduleTime and
// lastSuccessfulTime, and records upstream's events. Each CronJob is
// requeued for its next scheduled time on the controller's clock.
package cronjob

import (
	"context"
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	"k8s.io/client-go/kubernetes"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

var cronJobKind = batchv1.SchemeGroupVersion.WithKind("CronJob")

// Controller runs CronJobs.
type Controller struct {
	client   kubernetes.Interface
	recorder events.EventRecorder
	cronJobs batchlisters.CronJobLister
	jobs     batchlisters.JobLister
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	clock    clock.WithTicker
	logger   *slog.Logger
}

// New builds the controller over the shared CronJob and Job informers.
func New(client kubernetes.Interface, cronJobs batchinformers.CronJobInformer, jobs batchinformers.JobInformer, recorder events.EventRecorder, clk clock.WithTicker, logger *slog.Logger) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client: client, recorder: recorder, cronJobs: cronJobs.Lister(), jobs: jobs.Lister(),
		synced: []cache.InformerSynced{cronJobs.Informer().HasSynced, jobs.Informer().HasSynced},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "cronjob", Clock: clk}),
		clock: clk, logger: logger,
	}
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	if _, err := cronJobs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, cur any) { enqueue(cur) },
		DeleteFunc: enqueue,
	}); err != nil {
		return nil, err
	}
	owner := func(obj any) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		job, ok := obj.(*batchv1.Job)
		if !ok {
			return
		}
		if ref := metav1.GetControllerOf(job); ref != nil && ref.Kind == cronJobKind.Kind {
			c.queue.Add(job.Namespace + "/" + ref.Name)
		}
	}
	if _, err := jobs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    owner,
		UpdateFunc: func(_, cur any) { owner(cur) },
		DeleteFunc: owner,
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run syncs CronJobs with workers workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.Sync)
}

// Sync reconciles one CronJob and requeues it for its next time.
func (c *Controller) Sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	shared, err := c.cronJobs.CronJobs(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	cj := shared.DeepCopy()
	jobs, err := c.ownedJobs(cj)
	if err != nil {
		return err
	}
	changed, err := c.reconcileActive(ctx, cj, jobs)
	if err != nil {
		return err
	}
	after, created, err := c.schedule(ctx, cj)
	changed = changed || created
	if c.cleanupHistory(ctx, cj, jobs) {
		changed = true
	}
	if changed {
		if _, uerr := c.client.BatchV1().CronJobs(ns).UpdateStatus(ctx, cj, metav1.UpdateOptions{}); uerr != nil {
			return uerr
		}
	}
	if err != nil {
		return err
	}
	if after != nil {
		c.queue.AddAfter(key, *after)
	}
	return nil
}

func (c *Controller) ownedJobs(cj *batchv1.CronJob) ([]*batchv1.Job, error) {
	all, err := c.jobs.Jobs(cj.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []*batchv1.Job
	for _, j := range all {
		if ref := metav1.GetControllerOf(j); ref != nil && ref.UID == cj.UID {
			out = append(out, j)
		}
	}
	return out, nil
}

// reconcileActive keeps status.active to the owned Jobs still running and
// status.lastSuccessfulTime to the latest completion.
func (c *Controller) reconcileActive(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job) (bool, error) {
	changed := false
	owned := map[types.UID]bool{}
	for _, j := range jobs {
		owned[j.UID] = true
		active := inActive(cj, j.UID)
		done, cond := finishedCondition(j)
		switch {
		case !active && !done:
			if fresh, err := c.client.BatchV1().CronJobs(cj.Namespace).Get(ctx, cj.Name, metav1.GetOptions{}); err == nil && inActive(fresh, j.UID) {
				*cj = *fresh
				continue
			}
			c.recorder.Eventf(cj, j, corev1.EventTypeWarning, "UnexpectedJob", "Sync", "Saw a job that the controller did not create or forgot: %s", j.Name)
		case active && done:
			removeActive(cj, j.UID)
			c.recorder.Eventf(cj, j, corev1.EventTypeNormal, "SawCompletedJob", "Sync", "Saw completed job: %s, condition: %v", j.Name, cond)
			changed = true
		}
		if cond == batchv1.JobComplete && j.Status.CompletionTime != nil &&
			(cj.Status.LastSuccessfulTime == nil || j.Status.CompletionTime.After(cj.Status.LastSuccessfulTime.Time)) {
			cj.Status.LastSuccessfulTime = j.Status.CompletionTime.DeepCopy()
			changed = true
		}
	}
	for _, ref := range append([]corev1.ObjectReference(nil), cj.Status.Active...) {
		if owned[ref.UID] {
			continue
		}
		// The cache may be behind: ask the API before calling it missing.
		_, err := c.client.BatchV1().Jobs(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			c.recorder.Eventf(cj, nil, corev1.EventTypeNormal, "MissingJob", "Sync", "Active job went missing: %v", ref.Name)
			removeActive(cj, ref.UID)
			changed = true
		case err != nil:
			return changed, err
		}
	}
	return changed, nil
}

// schedule starts the Job of the most recent unmet scheduled time, if
// any is due and allowed, and returns when to look again.
func (c *Controller) schedule(ctx context.Context, cj *batchv1.CronJob) (*time.Duration, bool, error) {
	if cj.DeletionTimestamp != nil {
		return nil, false, nil
	}
	if tz := cj.Spec.TimeZone; tz != nil {
		if _, err := time.LoadLocation(*tz); err != nil {
			c.recorder.Eventf(cj, nil, corev1.EventTypeWarning, "UnknownTimeZone", "Schedule", "invalid timeZone: %q: %s", *tz, err)
			return nil, false, nil
		}
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return nil, false, nil
	}
	sched, err := cron.ParseStandard(scheduleSpec(cj, c.recorder))
	if err != nil {
		c.recorder.Eventf(cj, nil, corev1.EventTypeWarning, "UnparseableSchedule", "Schedule", "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return nil, false, nil
	}
	now := c.clock.Now()
	scheduled, missed, err := mostRecent(cj, now, sched, true)
	if err != nil {
		c.recorder.Eventf(cj, nil, corev1.EventTypeWarning, "InvalidSchedule", "Schedule", "invalid schedule: %s : %s", cj.Spec.Schedule, err)
		return nil, false, nil
	}
	if missed > maxMissedSchedules {
		c.recorder.Eventf(cj, nil, corev1.EventTypeWarning, "TooManyMissedTimes", "Schedule",
			"too many missed start times: %d. Set or decrease .spec.startingDeadlineSeconds or check clock skew", missed)
	}
	next := requeueAfter(cj, now, sched)
	if scheduled == nil {
		return &next, false, nil
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && scheduled.Add(time.Duration(*d)*time.Second).Before(now) {
		c.recorder.Eventf(cj, nil, corev1.EventTypeWarning, "MissSchedule", "Schedule", "Missed scheduled time to start a job: %s", scheduled.UTC().Format(time.RFC1123Z))
		return &next, false, nil
	}
	if inActiveByName(cj, jobName(cj, *scheduled)) || (cj.Status.LastScheduleTime != nil && cj.Status.LastScheduleTime.Time.Equal(*scheduled)) {
		return &next, false, nil
	}
	if cj.Spec.ConcurrencyPolicy == batchv1.ForbidConcurrent && len(cj.Status.Active) > 0 {
		c.recorder.Eventf(cj, nil, corev1.EventTypeNormal, "JobAlreadyActive", "Schedule", "Not starting job because prior execution is running and concurrency policy is Forbid")
		return &next, false, nil
	}
	replaced := false
	if cj.Spec.ConcurrencyPolicy == batchv1.ReplaceConcurrent {
		for _, ref := range append([]corev1.ObjectReference(nil), cj.Status.Active...) {
			if err := c.deleteJob(ctx, cj, ref.Name, ref.UID); err != nil {
				return nil, replaced, err
			}
			replaced = true
		}
	}
	job, err := c.createJob(ctx, cj, *scheduled)
	if err != nil || job == nil {
		return nil, replaced, err
	}
	cj.Status.Active = append(cj.Status.Active, corev1.ObjectReference{
		Kind: "Job", Namespace: job.Namespace, Name: job.Name, UID: job.UID,
		APIVersion: batchv1.SchemeGroupVersion.String(), ResourceVersion: job.ResourceVersion})
	cj.Status.LastScheduleTime = &metav1.Time{Time: *scheduled}
	next = requeueAfter(cj, now, sched)
	return &next, true, nil
}

// createJob creates the Job of scheduled; a Job of that name someone else
// created is left alone (nil, nil).
func (c *Controller) createJob(ctx context.Context, cj *batchv1.CronJob, scheduled time.Time) (*batchv1.Job, error) {
	req, err := jobFromTemplate(cj, scheduled)
	if err != nil {
		return nil, err
	}
	job, err := c.client.BatchV1().Jobs(cj.Namespace).Create(ctx, req, metav1.CreateOptions{})
	switch {
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return nil, err
	case apierrors.IsAlreadyExists(err):
		existing, gerr := c.client.BatchV1().Jobs(cj.Namespace).Get(ctx, req.Name, metav1.GetOptions{})
		if gerr != nil {
			return nil, gerr
		}
		if !metav1.IsControlledBy(existing, cj) || inActive(cj, existing.UID) {
			return nil, nil
		}
		return existing, nil
	case err != nil:
		c.recorder.Eventf(cj, nil, corev1.EventTypeWarning, "FailedCreate", "Create", "Error creating job: %v", err)
		return nil, err
	}
	c.recorder.Eventf(cj, job, corev1.EventTypeNormal, "SuccessfulCreate", "Create", "Created job %v", job.Name)
	return job, nil
}

// deleteJob deletes a Job with background propagation and drops it from
// status.active.
func (c *Controller) deleteJob(ctx context.Context, cj *batchv1.CronJob, name string, uid types.UID) error {
	policy := metav1.DeletePropagationBackground
	err := c.client.BatchV1().Jobs(cj.Namespace).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &policy})
	if err != nil && !apierrors.IsNotFound(err) {
		c.recorder.Eventf(cj, nil, corev1.EventTypeWarning, "FailedDelete", "Delete", "Deleted job: %v", err)
		return err
	}
	removeActive(cj, uid)
	c.recorder.Eventf(cj, nil, corev1.EventTypeNormal, "SuccessfulDelete", "Delete", "Deleted job %v", name)
	return nil
}

func inActive(cj *batchv1.CronJob, uid types.UID) bool {
	for _, r := range cj.Status.Active {
		if r.UID == uid {
			return true
		}
	}
	return false
}

func inActiveByName(cj *batchv1.CronJob, name string) bool {
	for _, r := range cj.Status.Active {
		if r.Name == name && r.Namespace == cj.Namespace {
			return true
		}
	}
	return false
}

func removeActive(cj *batchv1.CronJob, uid types.UID) {
	var keep []corev1.ObjectReference
	for _, r := range cj.Status.Active {
		if r.UID != uid {
			keep = append(keep, r)
		}
	}
	cj.Status.Active = keep
}

// finishedCondition reports whether the Job has a true Complete or Failed
// condition, and which.
func finishedCondition(j *batchv1.Job) (bool, batchv1.JobConditionType) {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true, c.Type
		}
	}
	return false, ""
}
