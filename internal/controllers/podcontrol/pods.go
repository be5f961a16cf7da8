package podcontrol

import (
	"math"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodDeletionCostAnnotation ranks Pods of a ReplicaSet for scale-down.
const PodDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// PodKey is namespace/name, the key expectations track deletes by.
func PodKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// IsActive: neither finished nor being deleted.
func IsActive(p *corev1.Pod) bool {
	return p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp == nil
}

// IsTerminating: being deleted but not finished, still counted by
// status.terminatingReplicas.
func IsTerminating(p *corev1.Pod) bool {
	return p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// Filter returns the pods keep accepts.
func Filter(pods []*corev1.Pod, keep func(*corev1.Pod) bool) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range pods {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// ReadyCondition is the Pod's Ready condition whatever its status, or
// nil.
func ReadyCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// IsReady: the Ready condition is True.
func IsReady(p *corev1.Pod) bool {
	c := ReadyCondition(p)
	return c != nil && c.Status == corev1.ConditionTrue
}

// IsAvailable: ready for at least minReadySeconds at now.
func IsAvailable(p *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	c := ReadyCondition(p)
	if c == nil || c.Status != corev1.ConditionTrue {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	min := time.Duration(minReadySeconds) * time.Second
	return !c.LastTransitionTime.IsZero() && c.LastTransitionTime.Add(min).Before(now)
}

// RankedPods orders Pods so the first are the best to delete, as
// upstream's ActivePodsWithRanks (with LogarithmicScaleDown and
// PodDeletionCost, both on in 1.37). Rank is, per Pod, how many related
// active Pods share its node: doubled-up Pods go first.
type RankedPods struct {
	Pods []*corev1.Pod
	Rank []int
	Now  time.Time
}

func (s RankedPods) Len() int { return len(s.Pods) }
func (s RankedPods) Swap(i, j int) {
	s.Pods[i], s.Pods[j] = s.Pods[j], s.Pods[i]
	s.Rank[i], s.Rank[j] = s.Rank[j], s.Rank[i]
}

var phaseOrder = map[corev1.PodPhase]int{corev1.PodPending: 0, corev1.PodUnknown: 1, corev1.PodRunning: 2}

// Less: unscheduled before scheduled, Pending before Unknown before
// Running, not ready before ready, lower deletion cost first, more Pods
// on the same node first, ready for a shorter time first, more restarts
// first, newer first (times compared on a log2 scale from now, ties
// broken by UID).
func (s RankedPods) Less(i, j int) bool {
	a, b := s.Pods[i], s.Pods[j]
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if phaseOrder[a.Status.Phase] != phaseOrder[b.Status.Phase] {
		return phaseOrder[a.Status.Phase] < phaseOrder[b.Status.Phase]
	}
	if IsReady(a) != IsReady(b) {
		return !IsReady(a)
	}
	if ca, cb := deletionCost(a), deletionCost(b); ca != cb {
		return ca < cb
	}
	if s.Rank[i] != s.Rank[j] {
		return s.Rank[i] > s.Rank[j]
	}
	if IsReady(a) && IsReady(b) {
		ta, tb := ReadyCondition(a).LastTransitionTime, ReadyCondition(b).LastTransitionTime
		if !ta.Equal(&tb) {
			return s.newer(a, b, ta, tb)
		}
	}
	if ra, rb := maxRestarts(a), maxRestarts(b); ra != rb {
		return ra > rb
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return s.newer(a, b, a.CreationTimestamp, b.CreationTimestamp)
	}
	return false
}

// newer compares two times of a and b on upstream's logarithmic scale:
// times in the same power-of-two age bucket are equal, then UID decides.
func (s RankedPods) newer(a, b *corev1.Pod, ta, tb metav1.Time) bool {
	if s.Now.IsZero() || ta.IsZero() || tb.IsZero() {
		return afterOrZero(ta, tb)
	}
	if d := logRank(ta.Time, s.Now) - logRank(tb.Time, s.Now); d != 0 {
		return d < 0
	}
	return a.UID < b.UID
}

func logRank(t, now time.Time) int {
	d := now.Sub(t)
	if d <= 0 {
		return -1
	}
	return int(math.Log2(float64(d)))
}

// afterOrZero: a zero time counts as the newest.
func afterOrZero(a, b metav1.Time) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero()
	}
	return a.After(b.Time)
}

func deletionCost(p *corev1.Pod) int32 {
	v, ok := p.Annotations[PodDeletionCostAnnotation]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0 // an invalid value is refused by validation; ignore
	}
	return int32(n)
}

func maxRestarts(p *corev1.Pod) int32 {
	var m int32
	for _, c := range p.Status.ContainerStatuses {
		m = max(m, c.RestartCount)
	}
	return m
}
