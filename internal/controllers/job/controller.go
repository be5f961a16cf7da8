// Package job is kube-controller-manager's job-controller run in-process:
// it creates the Pods of a Job from its template (with the controller
// reference, the job-tracking finalizer and, for Indexed Jobs, the
// completion index), counts finished Pods through
// status.uncountedTerminatedPods before removing their finalizer, applies
// backoffLimit with exponential back-off, activeDeadlineSeconds, suspend,
// the pod failure and success policies, and sets the conditions and
// events upstream sets. Without kubelets Pods only finish when a client
// writes their phase.
package job

import (
	"context"
	"log/slog"
	"reflect"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	batchlisters "k8s.io/client-go/listers/batch/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// Upstream's timings: Pod events are batched for a second per Job, API
// errors back off from 1s to 1m.
const (
	syncBatchPeriod  = time.Second
	apiBackoff       = time.Second
	maxAPIBackoff    = time.Minute
	maxUncountedPods = 500
	maxCreatePerSync = 500
	slowStartInitial = 1
)

// Controller runs Jobs.
type Controller struct {
	client   kubernetes.Interface
	pods     *podcontrol.Control
	recorder events.EventRecorder
	jobs     batchlisters.JobLister
	podStore corelisters.PodLister
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	orphans  workqueue.TypedRateLimitingInterface[string]
	exp      *expectations
	clock    clock.WithTicker
	logger   *slog.Logger

	backoffMu sync.Mutex
	backoff   map[string]backoffRecord
}

// New builds the controller over the shared Job and Pod informers.
func New(client kubernetes.Interface, jobs batchinformers.JobInformer, pods coreinformers.PodInformer, recorder events.EventRecorder, clk clock.WithTicker, logger *slog.Logger) (*Controller, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	limiter := func() workqueue.TypedRateLimiter[string] {
		return workqueue.NewTypedItemExponentialFailureRateLimiter[string](apiBackoff, maxAPIBackoff)
	}
	c := &Controller{
		client: client, pods: &podcontrol.Control{Client: client, Recorder: recorder}, recorder: recorder,
		jobs: jobs.Lister(), podStore: pods.Lister(),
		synced:  []cache.InformerSynced{jobs.Informer().HasSynced, pods.Informer().HasSynced},
		queue:   workqueue.NewTypedRateLimitingQueueWithConfig(limiter(), workqueue.TypedRateLimitingQueueConfig[string]{Name: "job", Clock: clk}),
		orphans: workqueue.NewTypedRateLimitingQueueWithConfig(limiter(), workqueue.TypedRateLimitingQueueConfig[string]{Name: "job_orphan_pod", Clock: clk}),
		exp:     newExpectations(clk), clock: clk, logger: logger, backoff: map[string]backoffRecord{},
	}
	if _, err := jobs.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueJob,
		UpdateFunc: func(_, cur any) { c.enqueueJob(cur) },
		DeleteFunc: c.deleteJob,
	}); err != nil {
		return nil, err
	}
	if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.addPod,
		UpdateFunc: c.updatePod,
		DeleteFunc: func(obj any) { c.deletePod(obj, true) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run syncs Jobs with workers workers and cleans orphan Pods' finalizers
// until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	var wg sync.WaitGroup
	wg.Go(func() { worker.RunSynced(ctx, c.orphans, 1, c.logger, c.synced, c.syncOrphanPod) })
	worker.RunSynced(ctx, c.queue, workers, c.logger, c.synced, c.Sync)
	wg.Wait()
}

func (c *Controller) enqueueJob(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

// enqueueBatched collapses the Pod events of one Job within a second into
// one sync, as upstream.
func (c *Controller) enqueueBatched(job *batchv1.Job) {
	if key, err := cache.MetaNamespaceKeyFunc(job); err == nil {
		c.queue.AddAfter(key, syncBatchPeriod)
	}
}

func (c *Controller) deleteJob(obj any) {
	job, ok := obj.(*batchv1.Job)
	if !ok {
		if tomb, isTomb := obj.(cache.DeletedFinalStateUnknown); isTomb {
			job, ok = tomb.Obj.(*batchv1.Job)
		}
		if !ok {
			return
		}
	}
	key, _ := cache.MetaNamespaceKeyFunc(job)
	c.exp.forget(key)
	c.backoffMu.Lock()
	delete(c.backoff, key)
	c.backoffMu.Unlock()
	// The Pods of a deleted Job keep their tracking finalizer until the
	// orphan worker removes it.
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return
	}
	pods, _ := c.podStore.Pods(job.Namespace).List(sel)
	for _, p := range pods {
		if hasFinalizer(p) {
			c.enqueueOrphan(p)
		}
	}
}

func (c *Controller) enqueueOrphan(pod *corev1.Pod) {
	if key, err := cache.MetaNamespaceKeyFunc(pod); err == nil {
		c.orphans.Add(key)
	}
}

// resolve returns the Job a controller reference names, if it is the
// same object.
func (c *Controller) resolve(ns string, ref *metav1.OwnerReference) *batchv1.Job {
	if ref == nil || ref.Kind != jobKind.Kind {
		return nil
	}
	job, err := c.jobs.Jobs(ns).Get(ref.Name)
	if err != nil || job.UID != ref.UID {
		return nil
	}
	return job
}

func (c *Controller) addPod(obj any) {
	pod := obj.(*corev1.Pod)
	if pod.DeletionTimestamp != nil {
		c.deletePod(pod, false)
		return
	}
	ref := metav1.GetControllerOf(pod)
	job := c.resolve(pod.Namespace, ref)
	if job == nil {
		if hasFinalizer(pod) {
			c.enqueueOrphan(pod)
		}
		if ref == nil {
			c.enqueueSelecting(pod)
		}
		return
	}
	key, _ := cache.MetaNamespaceKeyFunc(job)
	c.exp.Observed(key, 1, 0)
	c.enqueueBatched(job)
}

// enqueueSelecting wakes the Jobs whose selector matches an orphan Pod,
// which may adopt it.
func (c *Controller) enqueueSelecting(pod *corev1.Pod) {
	jobs, err := c.jobs.Jobs(pod.Namespace).List(labels.Everything())
	if err != nil {
		return
	}
	for _, j := range jobs {
		sel, err := metav1.LabelSelectorAsSelector(j.Spec.Selector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(pod.Labels)) {
			c.enqueueBatched(j)
		}
	}
}

func (c *Controller) updatePod(old, cur any) {
	oldPod, pod := old.(*corev1.Pod), cur.(*corev1.Pod)
	if oldPod.ResourceVersion == pod.ResourceVersion {
		return
	}
	if pod.DeletionTimestamp != nil && oldPod.DeletionTimestamp == nil {
		c.deletePod(pod, false)
		return
	}
	for _, ref := range []*metav1.OwnerReference{metav1.GetControllerOf(oldPod), metav1.GetControllerOf(pod)} {
		job := c.resolve(pod.Namespace, ref)
		if job == nil {
			continue
		}
		if !hasFinalizer(pod) {
			key, _ := cache.MetaNamespaceKeyFunc(job)
			c.exp.finalizerRemovalObserved(key, pod.UID)
		}
		c.enqueueBatched(job)
	}
	ref := metav1.GetControllerOf(pod)
	if job := c.resolve(pod.Namespace, ref); hasFinalizer(pod) && (job == nil || finished(job)) {
		c.enqueueOrphan(pod)
	}
	if ref == nil && (!reflect.DeepEqual(oldPod.Labels, pod.Labels) || metav1.GetControllerOf(oldPod) != nil) {
		c.enqueueSelecting(pod)
	}
}

// deletePod observes a deletion: final when the Pod is gone, not final
// when it only got its deletion timestamp.
func (c *Controller) deletePod(obj any, final bool) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		tomb, isTomb := obj.(cache.DeletedFinalStateUnknown)
		if !isTomb {
			return
		}
		if pod, ok = tomb.Obj.(*corev1.Pod); !ok {
			return
		}
	}
	job := c.resolve(pod.Namespace, metav1.GetControllerOf(pod))
	if job == nil || finished(job) {
		// No sync of this Job removes the finalizer any more.
		if hasFinalizer(pod) && !final {
			c.enqueueOrphan(pod)
		}
		return
	}
	key, _ := cache.MetaNamespaceKeyFunc(job)
	c.exp.Observed(key, 0, 1)
	if final || !hasFinalizer(pod) {
		c.exp.finalizerRemovalObserved(key, pod.UID)
	}
	c.enqueueBatched(job)
}

// syncOrphanPod removes the tracking finalizer of a Pod whose Job is gone
// or finished.
func (c *Controller) syncOrphanPod(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := c.podStore.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) || (err == nil && !hasFinalizer(pod)) {
		return nil
	}
	if err != nil {
		return err
	}
	if job := c.resolve(ns, metav1.GetControllerOf(pod)); job != nil && !finished(job) {
		return nil
	}
	if err := c.removeFinalizer(ctx, pod); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

func hasFinalizer(pod *corev1.Pod) bool {
	for _, f := range pod.Finalizers {
		if f == batchv1.JobTrackingFinalizer {
			return true
		}
	}
	return false
}

// finished: the Job has a true Complete or Failed condition.
func finished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
