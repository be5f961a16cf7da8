package nodes

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The NoSchedule taints the node lifecycle controller keeps in step with a
// node's state (TaintNodesByCondition adds the not-ready one at creation).
var (
	notReadyTaint      = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	unschedulableTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
)

// conditionTaints are the condition-driven NoSchedule taints: present
// exactly while the condition has the status named.
var conditionTaints = []struct {
	cond   corev1.NodeConditionType
	status corev1.ConditionStatus
	taint  corev1.Taint
}{
	{corev1.NodeReady, corev1.ConditionFalse, notReadyTaint},
	{corev1.NodeMemoryPressure, corev1.ConditionTrue, corev1.Taint{Key: corev1.TaintNodeMemoryPressure, Effect: corev1.TaintEffectNoSchedule}},
	{corev1.NodeDiskPressure, corev1.ConditionTrue, corev1.Taint{Key: corev1.TaintNodeDiskPressure, Effect: corev1.TaintEffectNoSchedule}},
	{corev1.NodePIDPressure, corev1.ConditionTrue, corev1.Taint{Key: corev1.TaintNodePIDPressure, Effect: corev1.TaintEffectNoSchedule}},
}

// WantTaints returns n's taints with the lifecycle NoSchedule taints set
// as the node lifecycle controller sets them: not-ready while Ready is
// not True (unknown too, as upstream's unreachable is not simulated),
// pressure taints while a pressure condition is True, unschedulable while
// spec.unschedulable. Other taints are kept in order.
func WantTaints(n *corev1.Node) []corev1.Taint {
	managed := func(t corev1.Taint) bool {
		if t.Effect != corev1.TaintEffectNoSchedule {
			return false
		}
		if t.Key == corev1.TaintNodeUnschedulable {
			return true
		}
		for _, ct := range conditionTaints {
			if ct.taint.Key == t.Key {
				return true
			}
		}
		return false
	}
	var out []corev1.Taint
	for _, t := range n.Spec.Taints {
		if !managed(t) {
			out = append(out, t)
		}
	}
	for _, ct := range conditionTaints {
		status := corev1.ConditionUnknown
		for _, c := range n.Status.Conditions {
			if c.Type == ct.cond {
				status = c.Status
			}
		}
		on := status == ct.status || (ct.cond == corev1.NodeReady && status != corev1.ConditionTrue)
		if on {
			out = append(out, keep(n.Spec.Taints, ct.taint))
		}
	}
	if n.Spec.Unschedulable {
		out = append(out, keep(n.Spec.Taints, unschedulableTaint))
	}
	return out
}

// keep returns the existing taint with t's key and effect (its timeAdded
// and value unchanged), or t.
func keep(taints []corev1.Taint, t corev1.Taint) corev1.Taint {
	for _, cur := range taints {
		if cur.MatchTaint(&t) {
			return cur
		}
	}
	return t
}

// syncTaints writes n's lifecycle taints when they are not what WantTaints
// says.
func (s *Simulator) syncTaints(ctx context.Context, n *corev1.Node) error {
	want := WantTaints(n)
	if taintsEqual(n.Spec.Taints, want) {
		return nil
	}
	next := n.DeepCopy()
	next.Spec.Taints = want
	_, err := s.client.CoreV1().Nodes().Update(ctx, next, metav1.UpdateOptions{FieldManager: FieldManager})
	return err
}

func taintsEqual(a, b []corev1.Taint) bool {
	return slices.EqualFunc(a, b, func(x, y corev1.Taint) bool {
		return x.Key == y.Key && x.Value == y.Value && x.Effect == y.Effect && x.TimeAdded.Equal(y.TimeAdded)
	})
}

// processTaints syncs the taints of one queued node.
func (s *Simulator) processTaints(ctx context.Context) bool {
	name, quit := s.taints.Get()
	if quit {
		return false
	}
	defer s.taints.Done(name)
	n, err := s.nodes.Get(name)
	if apierrors.IsNotFound(err) {
		s.taints.Forget(name)
		return true
	}
	if err == nil && IsSimulated(n) {
		err = s.syncTaints(ctx, n)
	}
	if err != nil && ctx.Err() == nil {
		s.cfg.Logger.Info("syncing simulated node taints", "node", name, "err", err)
		s.taints.AddRateLimited(name)
		return true
	}
	s.taints.Forget(name)
	return true
}
