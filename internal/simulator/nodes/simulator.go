package nodes

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
)

// FieldManager is the field manager and user agent the simulated kubelets
// write as.
const FieldManager = "kapi-simulated-kubelet"

// Config configures a Simulator.
type Config struct {
	// Count nodes are simulated, kapi-node-0 to kapi-node-<Count-1>.
	Count int
	// Template gives every node its capacity, allocatable, labels,
	// annotations and taints; nil is DefaultTemplate.
	Template *corev1.Node
	// KubeletVersion is nodeInfo.kubeletVersion.
	KubeletVersion string
	// Clock drives leases and heartbeats; nil is the real clock.
	Clock clock.WithTicker
	// Logger receives failures; nil discards.
	Logger *slog.Logger
}

// Simulator is the kubelets of the simulated nodes. One goroutine renews
// every lease and posts every heartbeat from a timer heap, so steady-state
// cost grows with the writes upstream makes, not with goroutines.
type Simulator struct {
	cfg    Config
	client kubernetes.Interface
	nodes  corelisters.NodeLister
	synced cache.InformerSynced
	taints workqueue.TypedRateLimitingInterface[string]

	mu    sync.Mutex
	due   dueHeap // guarded by mu
	byKey map[string]*nodeState
}

// nodeState is one simulated kubelet's memory.
type nodeState struct {
	index      int
	name       string
	lease      *coordinationv1.Lease
	lastReport time.Time // the last status post
	due        time.Time // the next lease renewal and status check
	heapIndex  int
}

// New returns a simulator writing through client and reading nodes from
// the shared informer.
func New(client kubernetes.Interface, nodes coreinformers.NodeInformer, cfg Config) (*Simulator, error) {
	if cfg.Count < 0 || cfg.Count > MaxNodes {
		return nil, fmt.Errorf("simulated node count %d must be between 0 and %d", cfg.Count, MaxNodes)
	}
	if cfg.Template == nil {
		cfg.Template = DefaultTemplate()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Simulator{
		cfg: cfg, client: client, nodes: nodes.Lister(), synced: nodes.Informer().HasSynced,
		taints: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "simulated_node_taints", Clock: cfg.Clock}),
		byKey: map[string]*nodeState{},
	}
	_, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    s.enqueueTaints,
		UpdateFunc: func(_, cur any) { s.enqueueTaints(cur) },
	})
	return s, err
}

func (s *Simulator) enqueueTaints(obj any) {
	if n, ok := obj.(*corev1.Node); ok && IsSimulated(n) {
		s.taints.Add(n.Name)
	}
}

// Register creates (or adopts, after a restart) every simulated node with
// a Ready status and without the not-ready taint, and its Lease. It
// returns once all are registered, so a server is ready with its nodes.
func (s *Simulator) Register(ctx context.Context) error {
	const workers = 8
	indexes := make(chan int)
	errs := make([]error, s.cfg.Count)
	var wg sync.WaitGroup
	for range min(workers, s.cfg.Count) {
		wg.Go(func() {
			for i := range indexes {
				errs[i] = s.register(ctx, i)
			}
		})
	}
	for i := range s.cfg.Count {
		indexes <- i
	}
	close(indexes)
	wg.Wait()
	return errors.Join(errs...)
}

// register brings node i up as a kubelet does: the Node, its status, then
// its Lease. A node of that name kapi does not simulate is an error.
func (s *Simulator) register(ctx context.Context, i int) error {
	now := s.cfg.Clock.Now()
	want := Build(i, s.cfg.Template, s.cfg.KubeletVersion, now)
	nodes := s.client.CoreV1().Nodes()
	n, err := nodes.Create(ctx, want, metav1.CreateOptions{FieldManager: FieldManager})
	if apierrors.IsAlreadyExists(err) {
		n, err = nodes.Get(ctx, want.Name, metav1.GetOptions{})
		if err == nil && !IsSimulated(n) {
			return fmt.Errorf("node %s exists and is not simulated by kapi (no %s label)", n.Name, SimulatedLabel)
		}
	}
	if err != nil {
		return fmt.Errorf("registering node %s: %w", want.Name, err)
	}
	n = n.DeepCopy()
	n.Status = want.Status
	if n, err = nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{FieldManager: FieldManager}); err != nil {
		return fmt.Errorf("posting the status of node %s: %w", want.Name, err)
	}
	// The taint worker may write the node at the same time: retry on a
	// fresh read.
	for attempt := 0; ; attempt++ {
		err := s.syncTaints(ctx, n)
		if err == nil {
			break
		}
		if !apierrors.IsConflict(err) || attempt == 5 {
			return fmt.Errorf("removing the not-ready taint of node %s: %w", n.Name, err)
		}
		if n, err = nodes.Get(ctx, n.Name, metav1.GetOptions{}); err != nil {
			return err
		}
	}
	lease, err := s.ensureLease(ctx, n, now)
	if err != nil {
		return err
	}
	st := &nodeState{index: i, name: n.Name, lease: lease, lastReport: now,
		// Spread the renewals of nodes registered together over the
		// interval rather than renewing them all in one burst.
		due: now.Add(RenewInterval + RenewInterval*time.Duration(i)/time.Duration(max(s.cfg.Count, 1)))}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.byKey[st.name]; ok {
		heap.Remove(&s.due, old.heapIndex)
	}
	s.byKey[st.name] = st
	heap.Push(&s.due, st)
	return nil
}

// ensureLease creates node n's Lease in kube-node-lease, owned by the
// Node, or renews the one a previous run left. The namespace may not
// exist yet while the server starts: creation is retried until it does.
func (s *Simulator) ensureLease(ctx context.Context, n *corev1.Node, now time.Time) (*coordinationv1.Lease, error) {
	leases := s.client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	want := newLease(n, now)
	var lease *coordinationv1.Lease
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		lease, err = leases.Create(ctx, want, metav1.CreateOptions{FieldManager: FieldManager})
		switch {
		case err == nil:
			return true, nil
		case apierrors.IsAlreadyExists(err):
			cur, err := leases.Get(ctx, want.Name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			cur = cur.DeepCopy()
			cur.Spec = want.Spec
			cur.OwnerReferences = want.OwnerReferences
			lease, err = leases.Update(ctx, cur, metav1.UpdateOptions{FieldManager: FieldManager})
			return err == nil, nil
		case apierrors.IsNotFound(err):
			return false, nil // kube-node-lease is not there yet
		default:
			return false, err
		}
	})
	if err != nil {
		return nil, fmt.Errorf("creating the lease of node %s: %w", n.Name, err)
	}
	return lease, nil
}

// newLease is the Lease a kubelet keeps for its node.
func newLease(n *corev1.Node, now time.Time) *coordinationv1.Lease {
	renew := metav1.NewMicroTime(now)
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{
			Name: n.Name, Namespace: corev1.NamespaceNodeLease,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID}},
		},
		Spec: coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(n.Name),
			LeaseDurationSeconds: ptr.To(int32(LeaseDuration / time.Second)),
			RenewTime:            &renew,
		},
	}
}
