// Package ttlafterfinished is kube-controller-manager's
// ttl-after-finished-controller run in-process: a Job with
// spec.ttlSecondsAfterFinished is deleted (cascading to its Pods) that
// many seconds after its Complete or Failed condition became true. The
// expiry is checked again on a fresh read before deleting, and the delete
// is conditioned on the UID read, so a Job whose TTL was just changed or
// that was re-created under the same name is not deleted by mistake.
package ttlafterfinished

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	"k8s.io/client-go/kubernetes"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// Controller deletes finished Jobs whose TTL has expired.
type Controller struct {
	client kubernetes.Interface
	jobs   batchlisters.JobLister
	synced cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]
	clock  clock.WithTicker
	logger *slog.Logger
}

// New builds the controller over the shared Job informer.
func New(client kubernetes.Interface, jobs batchinformers.JobInformer, clk clock.WithTicker, logger *slog.Logger) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client: client, jobs: jobs.Lister(), synced: jobs.Informer().HasSynced, clock: clk, logger: logger,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "ttl_jobs_to_delete", Clock: clk}),
	}
	enqueue := func(obj any) {
		job, ok := obj.(*batchv1.Job)
		if !ok || job.DeletionTimestamp != nil || !needsCleanup(job) {
			return
		}
		if key, err := cache.MetaNamespaceKeyFunc(job); err == nil {
			c.queue.Add(key)
		}
	}
	if _, err := jobs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, cur any) { enqueue(cur) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run processes Jobs with workers workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, []cache.InformerSynced{c.synced}, c.Sync)
}

// Sync deletes the Job key names if its TTL has expired, or requeues it
// for when it will.
func (c *Controller) Sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	job, err := c.jobs.Jobs(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if expired, err := c.expired(key, job); err != nil || !expired {
		return err
	}
	// The cached TTL may be stale: decide again on a fresh read.
	fresh, err := c.client.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if expired, err := c.expired(key, fresh); err != nil || !expired {
		return err
	}
	policy := metav1.DeletePropagationForeground
	err = c.client.BatchV1().Jobs(ns).Delete(ctx, name, metav1.DeleteOptions{
		PropagationPolicy: &policy,
		Preconditions:     &metav1.Preconditions{UID: &fresh.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		// Gone, or another Job of that name now: nothing of ours to delete.
		return nil
	}
	return err
}

// expired reports whether the Job's TTL has run out; if it will later,
// the Job is requeued for then.
func (c *Controller) expired(key string, job *batchv1.Job) (bool, error) {
	if job.DeletionTimestamp != nil || !needsCleanup(job) {
		return false, nil
	}
	finishedAt, err := finishTime(job)
	if err != nil {
		return false, err
	}
	left := finishedAt.Add(time.Duration(*job.Spec.TTLSecondsAfterFinished) * time.Second).Sub(c.clock.Now())
	if left <= 0 {
		return true, nil
	}
	c.queue.AddAfter(key, left)
	return false, nil
}

func needsCleanup(job *batchv1.Job) bool {
	if job.Spec.TTLSecondsAfterFinished == nil {
		return false
	}
	_, err := finishTime(job)
	return err == nil
}

// finishTime is when the Job's Complete or Failed condition became true.
func finishTime(job *batchv1.Job) (time.Time, error) {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			if c.LastTransitionTime.IsZero() {
				return time.Time{}, fmt.Errorf("unable to find the time when the Job %s/%s finished", job.Namespace, job.Name)
			}
			return c.LastTransitionTime.Time, nil
		}
	}
	return time.Time{}, fmt.Errorf("unable to find the status of the finished Job %s/%s", job.Namespace, job.Name)
}
