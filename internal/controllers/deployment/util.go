package deployment

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/dump"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/rand"
)

// Annotations, label and condition reasons, as upstream's deployment util.
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
	// rollbackToAnnotation is extensions/v1beta1's rollback request; it is
	// never copied to ReplicaSets.
	rollbackToAnnotation = "deprecated.deployment.rollback.to"

	// PodTemplateHashLabel tells the ReplicaSets of a Deployment apart.
	PodTemplateHashLabel = appsv1.DefaultDeploymentUniqueLabelKey

	FailedRSCreateReason       = "ReplicaSetCreateError"
	NewReplicaSetReason        = "NewReplicaSetCreated"
	FoundNewRSReason           = "FoundNewReplicaSet"
	NewRSAvailableReason       = "NewReplicaSetAvailable"
	ReplicaSetUpdatedReason    = "ReplicaSetUpdated"
	TimedOutReason             = "ProgressDeadlineExceeded"
	PausedDeployReason         = "DeploymentPaused"
	ResumedDeployReason        = "DeploymentResumed"
	MinimumReplicasAvailable   = "MinimumReplicasAvailable"
	MinimumReplicasUnavailable = "MinimumReplicasUnavailable"

	// maxRevHistoryLengthInChars caps revision-history.
	maxRevHistoryLengthInChars = 2000
)

// ComputeHash is the pod-template-hash of a template: FNV-32a over the
// template's deep dump, then the collision count, encoded as upstream so
// the same template gets the same ReplicaSet name.
func ComputeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(*template))
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// equalIgnoreHash compares templates without their pod-template-hash.
func equalIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	delete(a.Labels, PodTemplateHashLabel)
	delete(b.Labels, PodTemplateHashLabel)
	return equality.Semantic.DeepEqual(a, b)
}

func replicasOf(rs *appsv1.ReplicaSet) int32 {
	if rs == nil || rs.Spec.Replicas == nil {
		return 0
	}
	return *rs.Spec.Replicas
}

func desired(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

func isRollingUpdate(d *appsv1.Deployment) bool {
	return d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
}

// resolveFenceposts is upstream's rounding: maxSurge rounds up,
// maxUnavailable down, and both zero makes maxUnavailable 1.
func resolveFenceposts(surge, unavailable *intstr.IntOrString, want int32) (int32, int32, error) {
	zero := intstr.FromInt32(0)
	if surge == nil {
		surge = &zero
	}
	if unavailable == nil {
		unavailable = &zero
	}
	s, err := intstr.GetScaledValueFromIntOrPercent(surge, int(want), true)
	if err != nil {
		return 0, 0, err
	}
	u, err := intstr.GetScaledValueFromIntOrPercent(unavailable, int(want), false)
	if err != nil {
		return 0, 0, err
	}
	if s == 0 && u == 0 {
		u = 1
	}
	return int32(s), int32(u), nil
}

// maxSurge of a rolling Deployment, 0 otherwise.
func maxSurge(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) || d.Spec.Strategy.RollingUpdate == nil {
		return 0
	}
	s, _, _ := resolveFenceposts(d.Spec.Strategy.RollingUpdate.MaxSurge, d.Spec.Strategy.RollingUpdate.MaxUnavailable, desired(d))
	return s
}

// maxUnavailable of a rolling Deployment, at most its replicas.
func maxUnavailable(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) || d.Spec.Strategy.RollingUpdate == nil || desired(d) == 0 {
		return 0
	}
	_, u, _ := resolveFenceposts(d.Spec.Strategy.RollingUpdate.MaxSurge, d.Spec.Strategy.RollingUpdate.MaxUnavailable, desired(d))
	return min(u, desired(d))
}

func hasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

func hasRevisionHistoryLimit(d *appsv1.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}

// revision is an object's revision annotation, 0 when absent.
func revision(m metav1.Object) (int64, error) {
	v, ok := m.GetAnnotations()[RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

func maxRevision(rss []*appsv1.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		if v, err := revision(rs); err == nil {
			m = max(m, v)
		}
	}
	return m
}

func intAnnotation(rs *appsv1.ReplicaSet, name string) (int32, bool) {
	v, ok := rs.Annotations[name]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// setReplicasAnnotations records the Deployment's size and maximum on a
// ReplicaSet, for proportional scaling later.
func setReplicasAnnotations(rs *appsv1.ReplicaSet, want, maxReplicas int32) bool {
	if !replicasAnnotationsNeedUpdate(rs, want, maxReplicas) {
		return false
	}
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	rs.Annotations[DesiredReplicasAnnotation] = strconv.Itoa(int(want))
	rs.Annotations[MaxReplicasAnnotation] = strconv.Itoa(int(maxReplicas))
	return true
}

func replicasAnnotationsNeedUpdate(rs *appsv1.ReplicaSet, want, maxReplicas int32) bool {
	return rs.Annotations[DesiredReplicasAnnotation] != strconv.Itoa(int(want)) ||
		rs.Annotations[MaxReplicasAnnotation] != strconv.Itoa(int(maxReplicas))
}

// Sums over ReplicaSets (nil entries skipped).
func specReplicas(rss []*appsv1.ReplicaSet) (n int32) {
	for _, rs := range rss {
		n += replicasOf(rs)
	}
	return n
}

func statusSum(rss []*appsv1.ReplicaSet, f func(appsv1.ReplicaSetStatus) int32) (n int32) {
	for _, rs := range rss {
		if rs != nil {
			n += f(rs.Status)
		}
	}
	return n
}

func actualReplicas(s appsv1.ReplicaSetStatus) int32    { return s.Replicas }
func readyReplicas(s appsv1.ReplicaSetStatus) int32     { return s.ReadyReplicas }
func availableReplicas(s appsv1.ReplicaSetStatus) int32 { return s.AvailableReplicas }

// terminatingReplicas sums status.terminatingReplicas; unknown (nil) if
// any ReplicaSet does not report it.
func terminatingReplicas(rss []*appsv1.ReplicaSet) *int32 {
	var n int32
	for _, rs := range rss {
		if rs == nil {
			continue
		}
		if rs.Status.TerminatingReplicas == nil {
			return nil
		}
		n += *rs.Status.TerminatingReplicas
	}
	return &n
}

// active: ReplicaSets with replicas to run.
func active(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if replicasOf(rs) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// byCreation: older first, then by name.
func byCreation(a, b *appsv1.ReplicaSet) bool {
	if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.Name < b.Name
	}
	return a.CreationTimestamp.Before(&b.CreationTimestamp)
}

func newCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, msg string, now time.Time) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{Type: t, Status: status, Reason: reason, Message: msg,
		LastUpdateTime: metav1.NewTime(now), LastTransitionTime: metav1.NewTime(now)}
}

func getCondition(s appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

// setCondition replaces a condition unless status and reason are the
// same; the transition time stays when only the reason changes.
func setCondition(s *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	cur := getCondition(*s, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	removeCondition(s, c.Type)
	s.Conditions = append(s.Conditions, c)
}

func removeCondition(s *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	var kept []appsv1.DeploymentCondition
	for _, c := range s.Conditions {
		if c.Type != t {
			kept = append(kept, c)
		}
	}
	s.Conditions = kept
}
