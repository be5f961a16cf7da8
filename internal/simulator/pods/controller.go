// Package pods plays the kubelet of kapi's simulated nodes for the Pods
// bound to them: it gives each a pod IP from its node's CIDR, reports init
// containers completed and containers running, started and ready with
// kubelet's conditions (readiness gates honoured), ends Pods whose
// restartPolicy is Never or OnFailure after a run time (annotation
// RunTimeAnnotation) with an exit code (ExitCodeAnnotation), and finishes
// graceful deletions as a kubelet does once the containers stopped. Pods
// on nodes kapi does not simulate are left alone.
package pods

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
	"github.com/kapi-dev/kapi/internal/simulator/nodes"
)

// Annotations a Pod steers its simulation with.
const (
	// RunTimeAnnotation is how long the containers of a Pod whose
	// restartPolicy is Never or OnFailure run before they exit, as a Go
	// duration ("5s"); DefaultRunTime without it. A Pod whose
	// restartPolicy is Always runs until deleted.
	RunTimeAnnotation = "kapi.dev/simulated-run-time"
	// ExitCodeAnnotation is the exit code those containers exit with;
	// 0 without it.
	ExitCodeAnnotation = "kapi.dev/simulated-exit-code"
	// DefaultRunTime is the run time of a Pod without RunTimeAnnotation.
	DefaultRunTime = time.Second
	// FieldManager is the field manager the pod statuses are written as.
	FieldManager = nodes.FieldManager
	// nodeNameIndex indexes the shared pod informer by spec.nodeName.
	nodeNameIndex = "kapi-simulator/spec.nodeName"
)

// Controller runs the Pods of the simulated nodes.
type Controller struct {
	client kubernetes.Interface
	pods   corelisters.PodLister
	index  cache.Indexer
	nodes  corelisters.NodeLister
	synced []cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]
	clock  clock.WithTicker
	ips    *ipam
	logger *slog.Logger
}

// New returns the controller over the shared pod and node informers.
func New(client kubernetes.Interface, pods coreinformers.PodInformer, nodeInf coreinformers.NodeInformer, clk clock.WithTicker, logger *slog.Logger) (*Controller, error) {
	if clk == nil {
		clk = clock.RealClock{}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		client: client, pods: pods.Lister(), index: pods.Informer().GetIndexer(), nodes: nodeInf.Lister(),
		synced: []cache.InformerSynced{pods.Informer().HasSynced, nodeInf.Informer().HasSynced},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "simulated_pods", Clock: clk}),
		clock: clk, ips: newIPAM(), logger: logger,
	}
	err := pods.Informer().AddIndexers(cache.Indexers{nodeNameIndex: func(obj any) ([]string, error) {
		if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			return []string{p.Spec.NodeName}, nil
		}
		return nil, nil
	}})
	if err != nil {
		return nil, fmt.Errorf("indexing pods by node: %w", err)
	}
	err = worker.AddHandlers(
		worker.Handler{Informer: pods.Informer(), Funcs: cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueuePod,
			UpdateFunc: func(_, cur any) { c.enqueuePod(cur) },
			DeleteFunc: c.podDeleted,
		}},
		worker.Handler{Informer: nodeInf.Informer(), Funcs: cache.ResourceEventHandlerFuncs{
			AddFunc: c.enqueueNodePods,
		}},
	)
	return c, err
}

func (c *Controller) enqueuePod(obj any) {
	if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
		worker.Enqueue(c.queue)(p)
	}
}

// podDeleted frees the deleted Pod's IP.
func (c *Controller) podDeleted(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if p, ok := obj.(*corev1.Pod); ok {
		c.ips.release(p.UID)
	}
}

// enqueueNodePods queues the Pods bound to a node before it appeared.
func (c *Controller) enqueueNodePods(obj any) {
	n, ok := obj.(*corev1.Node)
	if !ok || !nodes.IsSimulated(n) {
		return
	}
	objs, _ := c.index.ByIndex(nodeNameIndex, n.Name)
	for _, o := range objs {
		c.enqueuePod(o)
	}
}

// Run claims the IPs Pods already hold (after a restart), then syncs Pods
// with workers until ctx ends.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer c.queue.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return
	}
	pods, _ := c.pods.List(labels.Everything())
	for _, p := range pods {
		if p.Status.PodIP != "" && !terminal(p) && c.simulatedNode(p) != nil {
			c.ips.claim(p.Spec.NodeName, p.Status.PodIP, p.UID)
		}
	}
	worker.Run(ctx, c.queue, workers, c.logger, c.sync)
}

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// simulatedNode is the simulated node p is bound to, or nil.
func (c *Controller) simulatedNode(p *corev1.Pod) *corev1.Node {
	if p.Spec.NodeName == "" {
		return nil
	}
	n, err := c.nodes.Get(p.Spec.NodeName)
	if err != nil || !nodes.IsSimulated(n) {
		return nil
	}
	return n
}

// sync moves one Pod a step along its life.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := c.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	node := c.simulatedNode(pod)
	if node == nil {
		return nil
	}
	switch {
	case pod.DeletionTimestamp != nil:
		return c.finishDeletion(ctx, pod)
	case terminal(pod):
		c.ips.release(pod.UID)
		return nil
	case pod.Status.PodIP == "" || pod.Status.Phase != corev1.PodRunning:
		return c.start(ctx, pod, node)
	default:
		return c.whileRunning(ctx, pod)
	}
}

// runSpec is how a Pod's containers end: after runTime with exitCode;
// finite is false for Pods that run until deleted.
type runSpec struct {
	finite   bool
	runTime  time.Duration
	exitCode int32
}

// parseRun reads the run annotations of p.
func parseRun(p *corev1.Pod) (runSpec, error) {
	rs := runSpec{finite: p.Spec.RestartPolicy == corev1.RestartPolicyNever || p.Spec.RestartPolicy == corev1.RestartPolicyOnFailure, runTime: DefaultRunTime}
	if v, ok := p.Annotations[RunTimeAnnotation]; ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return rs, fmt.Errorf("annotation %s: %q is not a non-negative duration such as 5s", RunTimeAnnotation, v)
		}
		rs.runTime = d
	}
	if v, ok := p.Annotations[ExitCodeAnnotation]; ok {
		code, err := strconv.ParseInt(v, 10, 32)
		if err != nil || code < 0 || code > 255 {
			return rs, fmt.Errorf("annotation %s: %q is not an exit code between 0 and 255", ExitCodeAnnotation, v)
		}
		rs.exitCode = int32(code)
	}
	return rs, nil
}

// start gives the Pod its IP and reports it running. A Pod whose
// simulation annotations do not parse waits with
// CreateContainerConfigError, as a Pod whose container config is invalid.
func (c *Controller) start(ctx context.Context, pod *corev1.Pod, node *corev1.Node) error {
	now := metav1.NewTime(c.clock.Now())
	next := pod.DeepCopy()
	if _, err := parseRun(pod); err != nil {
		next.Status = configError(pod, err, now)
		return c.writeStatus(ctx, pod, next)
	}
	ip, err := c.ips.allocate(node.Name, node.Spec.PodCIDR, pod.UID)
	if err != nil {
		return err
	}
	next.Status = running(pod, hostIP(node), ip.String(), now)
	if err := c.writeStatus(ctx, pod, next); err != nil {
		return err
	}
	return nil
}

// whileRunning keeps Ready in step with the readiness gates and ends the
// containers of a finite Pod once its run time passed.
func (c *Controller) whileRunning(ctx context.Context, pod *corev1.Pod) error {
	now := metav1.NewTime(c.clock.Now())
	rs, err := parseRun(pod)
	if err == nil && rs.finite {
		started := pod.Status.StartTime.Time
		if left := started.Add(rs.runTime).Sub(now.Time); left > 0 {
			c.queue.AddAfter(cacheKey(pod), left)
		} else {
			next := pod.DeepCopy()
			next.Status = terminated(pod, rs.exitCode, now)
			c.ips.release(pod.UID)
			return c.writeStatus(ctx, pod, next)
		}
	}
	next := pod.DeepCopy()
	setConditions(pod, &next.Status, now)
	return c.writeStatus(ctx, pod, next)
}

// finishDeletion completes a graceful deletion as kubelet does: the
// containers stop (a simulated process exits at once on SIGTERM, with 0),
// the Pod's terminal status is written, then the Pod is deleted with a
// grace period of 0.
func (c *Controller) finishDeletion(ctx context.Context, pod *corev1.Pod) error {
	if !terminal(pod) {
		next := pod.DeepCopy()
		next.Status = terminated(pod, 0, metav1.NewTime(c.clock.Now()))
		if err := c.writeStatus(ctx, pod, next); err != nil {
			return err
		}
	}
	c.ips.release(pod.UID)
	err := c.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		GracePeriodSeconds: ptr.To(int64(0)),
		Preconditions:      &metav1.Preconditions{UID: &pod.UID},
	})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// writeStatus updates pods/status from the informer's copy when it
// changed; a conflict retries from the next informer event.
func (c *Controller) writeStatus(ctx context.Context, old, next *corev1.Pod) error {
	if statusEqual(&old.Status, &next.Status) {
		return nil
	}
	_, err := c.client.CoreV1().Pods(next.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: FieldManager})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func cacheKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// hostIP is the node's InternalIP.
func hostIP(n *corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return ""
}

// configError is the status of a Pod whose containers cannot be created:
// Pending, each container waiting with CreateContainerConfigError.
func configError(pod *corev1.Pod, err error, now metav1.Time) corev1.PodStatus {
	st := pod.Status.DeepCopy()
	st.Phase = corev1.PodPending
	st.ContainerStatuses = nil
	for _, ctr := range pod.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
			Name: ctr.Name, Image: ctr.Image, Started: ptr.To(false),
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CreateContainerConfigError", Message: err.Error()}},
		})
	}
	setConditions(pod, st, now)
	return *st
}
