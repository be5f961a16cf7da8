// Package podgc is kube-controller-manager's pod-garbage-collector
// controller: every 20 seconds it force-deletes Pods nothing else will
// clean up — the oldest terminated Pods beyond --terminated-pod-gc-
// threshold (evicted ones first), Pods bound to a Node that no longer
// exists (after a 40 second quarantine and a live GET, so an informer
// lagging behind a new Node deletes nothing), terminating Pods that were
// never scheduled, and terminating Pods on a NotReady Node tainted
// node.kubernetes.io/out-of-service. A Pod not yet in a terminal phase is
// first marked Failed (orphans with upstream's DisruptionTarget
// condition, reason DeletionByPodGC), since no kubelet will.
package podgc

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
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
)

// Upstream's timings.
const (
	CheckPeriod    = 20 * time.Second
	QuarantineTime = 40 * time.Second
	// DefaultTerminatedPodThreshold is --terminated-pod-gc-threshold's
	// default.
	DefaultTerminatedPodThreshold = 12500
	// deleteWorkers bounds the deletions in flight in one pass (upstream
	// starts one goroutine per Pod).
	deleteWorkers = 16
)

// Controller collects Pods.
type Controller struct {
	client    kubernetes.Interface
	pods      corelisters.PodLister
	nodes     corelisters.NodeLister
	synced    []cache.InformerSynced
	threshold int
	clock     clock.Clock
	logger    *slog.Logger

	// quarantine holds the Nodes Pods are bound to that the informer does
	// not know, with when that was first seen; only after QuarantineTime
	// is a Node asked for, and its Pods deleted if it is really gone.
	mu         sync.Mutex
	quarantine map[string]time.Time
}

// New returns the collector over the shared Pod and Node informers;
// threshold <= 0 leaves terminated Pods alone, as upstream.
func New(client kubernetes.Interface, pods coreinformers.PodInformer, nodes coreinformers.NodeInformer, threshold int, clk clock.Clock, logger *slog.Logger) *Controller {
	return &Controller{
		client: client, pods: pods.Lister(), nodes: nodes.Lister(),
		synced:    []cache.InformerSynced{pods.Informer().HasSynced, nodes.Informer().HasSynced},
		threshold: threshold, clock: clk, logger: logger,
		quarantine: map[string]time.Time{},
	}
}

// Run collects at once, then CheckPeriod (on the controller's clock)
// after each pass, until ctx ends.
func (c *Controller) Run(ctx context.Context) {
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return
	}
	for {
		c.GC(ctx)
		t := c.clock.NewTimer(CheckPeriod)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// GC is one pass over the cached Pods and Nodes.
func (c *Controller) GC(ctx context.Context) {
	pods, err := c.pods.List(labels.Everything())
	if err != nil {
		c.logger.Error("listing pods", "err", err)
		return
	}
	nodes, err := c.nodes.List(labels.Everything())
	if err != nil {
		c.logger.Error("listing nodes", "err", err)
		return
	}
	if c.threshold > 0 {
		c.gcTerminated(ctx, pods)
	}
	c.gcOutOfService(ctx, pods)
	c.gcOrphaned(ctx, pods, nodes)
	c.gcUnscheduledTerminating(ctx, pods)
}

// gcTerminated deletes the terminated Pods beyond the threshold: evicted
// ones first, then the oldest, by name among equals.
func (c *Controller) gcTerminated(ctx context.Context, pods []*corev1.Pod) {
	var terminated []*corev1.Pod
	for _, p := range pods {
		if isTerminated(p) {
			terminated = append(terminated, p)
		}
	}
	excess := len(terminated) - c.threshold
	if excess <= 0 {
		return
	}
	slices.SortFunc(terminated, deletionOrder)
	c.logger.Info("garbage collecting terminated pods", "count", excess)
	c.deleteAll(ctx, terminated[:excess], nil)
}

// gcOutOfService deletes terminating Pods on a NotReady Node that an
// administrator tainted out-of-service (the node is known to be down).
func (c *Controller) gcOutOfService(ctx context.Context, pods []*corev1.Pod) {
	var doomed []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil || p.Spec.NodeName == "" {
			continue
		}
		node, err := c.nodes.Get(p.Spec.NodeName)
		if err != nil {
			continue
		}
		if !nodeReady(node) && hasTaint(node, corev1.TaintNodeOutOfService) {
			doomed = append(doomed, p)
		}
	}
	if len(doomed) > 0 {
		slices.SortFunc(doomed, deletionOrder)
		c.deleteAll(ctx, doomed, nil)
	}
}

// gcOrphaned deletes Pods bound to Nodes that stayed missing through the
// quarantine and that the API confirms are gone.
func (c *Controller) gcOrphaned(ctx context.Context, pods []*corev1.Pod, nodes []*corev1.Node) {
	known := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		known[n.Name] = true
	}
	gone := c.goneNodes(ctx, pods, known)
	if len(gone) == 0 {
		return
	}
	var orphans []*corev1.Pod
	for _, p := range pods {
		if gone[p.Spec.NodeName] {
			orphans = append(orphans, p)
		}
	}
	c.deleteAll(ctx, orphans, &corev1.PodCondition{
		Type:    corev1.DisruptionTarget,
		Status:  corev1.ConditionTrue,
		Reason:  "DeletionByPodGC",
		Message: "PodGC: node no longer exists",
	})
}

// goneNodes updates the quarantine and returns the Nodes past it that a
// GET does not find. A Node checked leaves the quarantine; if its Pods
// remain and it is still missing, it enters again.
func (c *Controller) goneNodes(ctx context.Context, pods []*corev1.Pod, known map[string]bool) map[string]bool {
	now := c.clock.Now()
	c.mu.Lock()
	for _, p := range pods {
		if name := p.Spec.NodeName; name != "" && !known[name] {
			if _, ok := c.quarantine[name]; !ok {
				c.quarantine[name] = now
			}
		}
	}
	var due []string
	for name, since := range c.quarantine {
		if known[name] {
			delete(c.quarantine, name)
		} else if now.Sub(since) >= QuarantineTime {
			due = append(due, name)
			delete(c.quarantine, name)
		}
	}
	c.mu.Unlock()
	gone := map[string]bool{}
	for _, name := range due {
		_, err := c.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			gone[name] = true
		case err != nil:
			c.logger.Error("checking a node", "node", name, "err", err)
		}
	}
	return gone
}

// gcUnscheduledTerminating deletes terminating Pods no Node will ever
// finish.
func (c *Controller) gcUnscheduledTerminating(ctx context.Context, pods []*corev1.Pod) {
	var doomed []*corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp != nil && p.Spec.NodeName == "" {
			doomed = append(doomed, p)
		}
	}
	c.deleteAll(ctx, doomed, nil)
}

// deleteAll marks each Pod failed and force-deletes it, several at once.
func (c *Controller) deleteAll(ctx context.Context, pods []*corev1.Pod, cond *corev1.PodCondition) {
	workqueue.ParallelizeUntil(ctx, deleteWorkers, len(pods), func(i int) {
		p := pods[i]
		if err := c.markFailedAndDelete(ctx, p, cond); err != nil && !apierrors.IsNotFound(err) {
			c.logger.Error("force deleting a pod", "pod", p.Namespace+"/"+p.Name, "err", err)
			return
		}
		c.logger.Info("force deleted pod", "pod", p.Namespace+"/"+p.Name, "node", p.Spec.NodeName)
	})
}

// isTerminated: the Pod's phase is terminal (neither Pending, Running
// nor Unknown), as upstream counts it.
func isTerminated(p *corev1.Pod) bool {
	switch p.Status.Phase {
	case corev1.PodPending, corev1.PodRunning, corev1.PodUnknown:
		return false
	}
	return true
}

// isEvicted: failed by the kubelet's eviction manager.
func isEvicted(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodFailed && p.Status.Reason == "Evicted"
}

// deletionOrder sorts evicted Pods first, then by age, then name.
func deletionOrder(a, b *corev1.Pod) int {
	if ea, eb := isEvicted(a), isEvicted(b); ea != eb {
		if ea {
			return -1
		}
		return 1
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		if a.CreationTimestamp.Before(&b.CreationTimestamp) {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Name, b.Name)
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func hasTaint(n *corev1.Node, key string) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
}
