// Package scheduler is kapi's built-in scheduler, modelled on
// kube-scheduler's default profile: it binds Pods that name
// "default-scheduler" and no node to a Node passing upstream's default
// filters (NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts,
// NodeResourcesFit, PodTopologySpread, InterPodAffinity), chosen by the
// default scores and weights, and reports a Pod no node fits with
// upstream's PodScheduled condition and FailedScheduling event.
package scheduler

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
)

// SchedulerName is the spec.schedulerName this scheduler serves.
const SchedulerName = corev1.DefaultSchedulerName

// Options tune a Scheduler; the zero value is upstream's behaviour.
type Options struct {
	// Clock drives backoff and the periodic flush; nil is the real clock.
	Clock clock.WithTicker
	// Deterministic breaks score ties by node name instead of at random.
	Deterministic bool
	Logger        *slog.Logger
}

// Scheduler schedules one pod at a time, as kube-scheduler does, and binds
// in the background.
type Scheduler struct {
	client     kubernetes.Interface
	recorder   events.EventRecorder
	pods       corelisters.PodLister
	namespaces corelisters.NamespaceLister
	owners     *ownerListers // nil: no system default spreading (tests)
	synced     []cache.InformerSynced
	logger     *slog.Logger
	clock      clock.WithTicker

	queue *schedulingQueue
	cache *nodeCache
	rand  *rand.Rand
	// nextStartNodeIndex rotates where filtering starts (cache lock).
	nextStartNodeIndex int

	binds sync.WaitGroup
}

// New builds a Scheduler over the shared informer factory (pods, nodes,
// namespaces, and the Services, ReplicationControllers, ReplicaSets and
// StatefulSets default spreading reads); recorder reports as
// "default-scheduler".
func New(client kubernetes.Interface, recorder events.EventRecorder, factory informers.SharedInformerFactory, o Options) (*Scheduler, error) {
	core, apps := factory.Core().V1(), factory.Apps().V1()
	pods, nodes, namespaces := core.Pods(), core.Nodes(), core.Namespaces()
	owners := &ownerListers{services: core.Services().Lister(), rcs: core.ReplicationControllers().Lister(),
		replicaSets: apps.ReplicaSets().Lister(), statefulSets: apps.StatefulSets().Lister()}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Scheduler{
		client: client, recorder: recorder, logger: o.Logger, clock: o.Clock,
		pods: pods.Lister(), namespaces: namespaces.Lister(),
		owners: owners,
		synced: []cache.InformerSynced{pods.Informer().HasSynced, nodes.Informer().HasSynced, namespaces.Informer().HasSynced,
			core.Services().Informer().HasSynced, core.ReplicationControllers().Informer().HasSynced,
			apps.ReplicaSets().Informer().HasSynced, apps.StatefulSets().Informer().HasSynced},
		queue: newSchedulingQueue(o.Clock),
		cache: newCache(),
	}
	if !o.Deterministic {
		s.rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if _, err := nodes.Informer().AddEventHandler(s.nodeHandlers()); err != nil {
		return nil, err
	}
	if _, err := pods.Informer().AddEventHandler(s.podHandlers()); err != nil {
		return nil, err
	}
	return s, nil
}

// Run schedules until ctx ends, then waits for bindings in flight.
func (s *Scheduler) Run(ctx context.Context) {
	defer s.queue.q.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), s.synced...) {
		return
	}
	go wait.Until(s.queue.flush, flushInterval, ctx.Done())
	go func() {
		<-ctx.Done()
		s.queue.q.ShutDown()
	}()
	for s.scheduleNext(ctx) {
	}
	s.binds.Wait()
}

// scheduleNext takes one pod off the queue and schedules it.
func (s *Scheduler) scheduleNext(ctx context.Context) bool {
	key, quit := s.queue.q.Get()
	if quit {
		return false
	}
	defer s.queue.q.Done(key)
	s.scheduleOne(ctx, key)
	return true
}

func (s *Scheduler) scheduleOne(ctx context.Context, key string) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return
	}
	pod, err := s.pods.Pods(ns).Get(name)
	if err != nil || !responsible(pod) || s.cache.isAssumed(key) {
		s.queue.remove(key)
		return
	}
	cycle := s.queue.cycle()
	start := time.Now()
	host, pi, err := s.schedule(key, pod)
	if err != nil {
		s.handleFailure(ctx, key, pod, err, cycle)
		return
	}
	s.logger.Debug("pod scheduled", "pod", key, "node", host, "took", time.Since(start))
	s.binds.Add(1)
	go func() {
		defer s.binds.Done()
		s.bind(ctx, key, pi, host)
	}()
}

// responsible: a pod this scheduler should place.
func responsible(pod *corev1.Pod) bool {
	return pod.Spec.NodeName == "" && pod.Spec.SchedulerName == SchedulerName &&
		pod.DeletionTimestamp == nil && len(pod.Spec.SchedulingGates) == 0 &&
		pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed
}

// namespaceLabels are a namespace's labels for namespace selectors.
func (s *Scheduler) namespaceLabels(name string) labels.Set {
	ns, err := s.namespaces.Get(name)
	if err != nil {
		return nil
	}
	return ns.Labels
}
