package nodes

import (
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// dueHeap orders node states by their next renewal.
type dueHeap []*nodeState

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIndex, h[j].heapIndex = i, j
}
func (h *dueHeap) Push(x any) {
	st := x.(*nodeState)
	st.heapIndex = len(*h)
	*h = append(*h, st)
}
func (h *dueHeap) Pop() any {
	old := *h
	st := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return st
}

// Run renews leases, posts heartbeats and keeps the taints of the
// simulated nodes until ctx ends. Register comes first.
func (s *Simulator) Run(ctx context.Context) {
	defer s.taints.ShutDown()
	if !cache.WaitForCacheSync(ctx.Done(), s.synced) {
		return
	}
	go func() {
		for s.processTaints(ctx) {
		}
	}()
	for {
		wait, ok := s.RunDue(ctx)
		if !ok {
			<-ctx.Done()
			return
		}
		t := s.cfg.Clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// RunDue renews every lease that is due now and reports how long until
// the next one; false when no node is left.
func (s *Simulator) RunDue(ctx context.Context) (time.Duration, bool) {
	for ctx.Err() == nil {
		now := s.cfg.Clock.Now()
		s.mu.Lock()
		if len(s.due) == 0 {
			s.mu.Unlock()
			return 0, false
		}
		st := s.due[0]
		if wait := st.due.Sub(now); wait > 0 {
			s.mu.Unlock()
			return wait, true
		}
		s.mu.Unlock()
		gone := s.tick(ctx, st, now)
		s.mu.Lock()
		if gone {
			heap.Remove(&s.due, st.heapIndex)
			delete(s.byKey, st.name)
		} else {
			st.due = now.Add(RenewInterval)
			heap.Fix(&s.due, st.heapIndex)
		}
		s.mu.Unlock()
	}
	return 0, false
}

// tick is one round of a kubelet for its node: renew the lease, post the
// status if it drifted from what the kubelet reports or if
// StatusReportFrequency passed since the last post. It reports whether
// the node is gone: a deleted simulated node is not registered again.
func (s *Simulator) tick(ctx context.Context, st *nodeState, now time.Time) (gone bool) {
	node, err := s.nodes.Get(st.name)
	if apierrors.IsNotFound(err) {
		s.cfg.Logger.Info("simulated node deleted; its kubelet stops", "node", st.name)
		return true
	}
	if err != nil {
		return false
	}
	s.renewLease(ctx, st, node, now)
	want := Status(st.index, s.cfg.Template, s.cfg.KubeletVersion, now)
	switch {
	case drifted(node, &want):
		n := node.DeepCopy()
		n.Status = want
		keepTransitions(n.Status.Conditions, node.Status.Conditions)
		if _, err := s.client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{FieldManager: FieldManager}); err != nil {
			s.cfg.Logger.Info("posting node status", "node", st.name, "err", err)
			return false
		}
		st.lastReport = now
	case !now.Before(st.lastReport.Add(StatusReportFrequency)):
		if err := s.heartbeat(ctx, st.name, now); err != nil {
			s.cfg.Logger.Info("posting node heartbeat", "node", st.name, "err", err)
			return false
		}
		st.lastReport = now
	}
	return false
}

// renewLease updates the lease the kubelet last wrote, as kubelet does;
// when that fails (someone else wrote it, or it was deleted) the next
// round starts from a fresh read or a new Lease.
func (s *Simulator) renewLease(ctx context.Context, st *nodeState, node *corev1.Node, now time.Time) {
	leases := s.client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	var (
		l   *coordinationv1.Lease
		err error
	)
	if st.lease != nil {
		next := st.lease.DeepCopy()
		renew := metav1.NewMicroTime(now)
		next.Spec.RenewTime = &renew
		if l, err = leases.Update(ctx, next, metav1.UpdateOptions{FieldManager: FieldManager}); err == nil {
			st.lease = l
			return
		}
	}
	cur, err := leases.Get(ctx, st.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		l, err = leases.Create(ctx, newLease(node, now), metav1.CreateOptions{FieldManager: FieldManager})
	case err == nil:
		next := cur.DeepCopy()
		next.Spec = newLease(node, now).Spec
		l, err = leases.Update(ctx, next, metav1.UpdateOptions{FieldManager: FieldManager})
	}
	if err != nil {
		s.cfg.Logger.Info("renewing node lease", "node", st.name, "err", err)
		st.lease = nil
		return
	}
	st.lease = l
}

// heartbeat moves every condition's lastHeartbeatTime to now with a
// strategic merge patch of nodes/status, as kubelet's unchanged report.
func (s *Simulator) heartbeat(ctx context.Context, name string, now time.Time) error {
	t := metav1.NewTime(now)
	type cond struct {
		Type              corev1.NodeConditionType `json:"type"`
		LastHeartbeatTime metav1.Time              `json:"lastHeartbeatTime"`
	}
	var conds []cond
	for _, c := range Conditions(t) {
		conds = append(conds, cond{Type: c.Type, LastHeartbeatTime: t})
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": conds}})
	if err != nil {
		return err
	}
	_, err = s.client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager}, "status")
	return err
}

// drifted reports whether node's status differs from what its kubelet
// reports, heartbeat and transition times aside.
func drifted(node *corev1.Node, want *corev1.NodeStatus) bool {
	got := node.Status.DeepCopy()
	w := want.DeepCopy()
	for _, cs := range [][]corev1.NodeCondition{got.Conditions, w.Conditions} {
		for i := range cs {
			cs[i].LastHeartbeatTime, cs[i].LastTransitionTime = metav1.Time{}, metav1.Time{}
		}
	}
	// Images and volumes are not simulated; others may not write them
	// either, so they count as drift too.
	return !equality.Semantic.DeepEqual(got, w)
}

// keepTransitions keeps the lastTransitionTime of conditions whose status
// did not change, as kubelet does.
func keepTransitions(next, prev []corev1.NodeCondition) {
	for i := range next {
		for _, p := range prev {
			if p.Type == next[i].Type && p.Status == next[i].Status && !p.LastTransitionTime.IsZero() {
				next[i].LastTransitionTime = p.LastTransitionTime
			}
		}
	}
}

// NextDue is when the next lease renewal is due, for tests.
func (s *Simulator) NextDue() (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.due) == 0 {
		return time.Time{}, fmt.Errorf("no simulated node")
	}
	return s.due[0].due, nil
}
