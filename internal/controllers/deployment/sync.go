package deployment

import (
	"cmp"
	"context"
	"reflect"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

// sync is one pass over a Deployment, in upstream's order: claim its
// ReplicaSets, status only while it is deleted, paused condition, then a
// scaling event, a paused sync or a rollout by strategy.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	cached, err := c.dLister.Deployments(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	d := cached.DeepCopy()
	if d.Spec.Selector == nil || reflect.DeepEqual(d.Spec.Selector, &metav1.LabelSelector{}) {
		c.recorder.Eventf(d, nil, corev1.EventTypeWarning, "SelectingAll", "Sync", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Generation {
			d.Status.ObservedGeneration = d.Generation
			_, err := c.client.AppsV1().Deployments(ns).UpdateStatus(ctx, d, metav1.UpdateOptions{})
			return err
		}
		return nil
	}
	rsList, err := c.claimReplicaSets(ctx, d)
	if err != nil {
		return err
	}
	if d.DeletionTimestamp != nil {
		newRS, oldRSs, err := c.allReplicaSets(ctx, d, rsList, false)
		if err != nil {
			return err
		}
		return c.syncStatus(ctx, append(oldRSs, newRS), newRS, d)
	}
	if err := c.checkPausedConditions(ctx, d); err != nil {
		return err
	}
	if d.Spec.Paused {
		return c.syncScale(ctx, d, rsList)
	}
	scaling, err := c.isScalingEvent(ctx, d, rsList)
	if err != nil {
		return err
	}
	if scaling {
		return c.syncScale(ctx, d, rsList)
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		return c.rolloutRecreate(ctx, d, rsList)
	}
	return c.rolloutRolling(ctx, d, rsList)
}

// claimReplicaSets adopts and releases ReplicaSets by the Deployment's
// selector and returns the ones it controls.
func (c *Controller) claimReplicaSets(ctx context.Context, d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	all, err := c.rsLister.ReplicaSets(d.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	m := &podcontrol.RefManager{
		Owner: d, OwnerGVK: DeploymentKind, Selector: sel,
		CanAdopt: podcontrol.RecheckDeletion(func(ctx context.Context) (metav1.Object, error) {
			return c.client.AppsV1().Deployments(d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
		}, "Deployment", d),
	}
	return podcontrol.ClaimPatching(ctx, m, all, func(ctx context.Context, ns, name string, body []byte) error {
		_, err := c.client.AppsV1().ReplicaSets(ns).Patch(ctx, name, types.StrategicMergePatchType, body, metav1.PatchOptions{})
		return err
	})
}

// checkPausedConditions sets Progressing Unknown DeploymentPaused or
// DeploymentResumed when the pause changes (not over a timeout).
func (c *Controller) checkPausedConditions(ctx context.Context, d *appsv1.Deployment) error {
	if !hasProgressDeadline(d) {
		return nil
	}
	cond := getCondition(d.Status, appsv1.DeploymentProgressing)
	if cond != nil && cond.Reason == TimedOutReason {
		return nil
	}
	pausedCond := cond != nil && cond.Reason == PausedDeployReason
	switch {
	case d.Spec.Paused && !pausedCond:
		setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, PausedDeployReason, "Deployment is paused", c.clock.Now()))
	case !d.Spec.Paused && pausedCond:
		setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ResumedDeployReason, "Deployment is resumed", c.clock.Now()))
	default:
		return nil
	}
	return c.updateStatus(ctx, d)
}

// updateStatus writes d's status and keeps its resourceVersion current
// for the writes that follow in the same sync.
func (c *Controller) updateStatus(ctx context.Context, d *appsv1.Deployment) error {
	updated, err := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	if err == nil {
		d.ResourceVersion = updated.ResourceVersion
	}
	return err
}

// isScalingEvent: an active ReplicaSet was sized for another replica
// count than the Deployment's now.
func (c *Controller) isScalingEvent(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (bool, error) {
	newRS, oldRSs, err := c.allReplicaSets(ctx, d, rsList, false)
	if err != nil {
		return false, err
	}
	for _, rs := range active(append(oldRSs, newRS)) {
		if want, ok := intAnnotation(rs, DesiredReplicasAnnotation); ok && want != desired(d) {
			return true, nil
		}
	}
	return false, nil
}

// syncScale serves scaling events and paused Deployments: resize without
// rolling, clean up when paused, report status.
func (c *Controller) syncScale(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := c.allReplicaSets(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if err := c.scale(ctx, d, newRS, oldRSs); err != nil {
		return err
	}
	if d.Spec.Paused {
		if err := c.cleanup(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncStatus(ctx, append(oldRSs, newRS), newRS, d)
}

// syncStatus writes the counted status if it changed.
func (c *Controller) syncStatus(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) error {
	status := c.calculateStatus(allRSs, newRS, d)
	if reflect.DeepEqual(d.Status, status) {
		return nil
	}
	d.Status = status
	return c.updateStatus(ctx, d)
}

// cleanup deletes the oldest scaled-down ReplicaSets beyond
// revisionHistoryLimit.
func (c *Controller) cleanup(ctx context.Context, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) error {
	if !hasRevisionHistoryLimit(d) {
		return nil
	}
	var cleanable []*appsv1.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			cleanable = append(cleanable, rs)
		}
	}
	diff := len(cleanable) - int(*d.Spec.RevisionHistoryLimit)
	if diff <= 0 {
		return nil
	}
	slices.SortFunc(cleanable, byRevision)
	for _, rs := range cleanable[:diff] {
		// Only fully scaled-down ReplicaSets whose status caught up.
		if rs.Status.Replicas != 0 || replicasOf(rs) != 0 || rs.Generation > rs.Status.ObservedGeneration {
			continue
		}
		err := c.client.AppsV1().ReplicaSets(rs.Namespace).Delete(ctx, rs.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// byRevision orders by revision, then by creation.
func byRevision(a, b *appsv1.ReplicaSet) int {
	ra, _ := revision(a)
	rb, _ := revision(b)
	switch {
	case ra != rb:
		return cmp.Compare(ra, rb)
	case byCreation(a, b):
		return -1
	case byCreation(b, a):
		return 1
	}
	return 0
}

// podsByReplicaSet groups the Deployment's Pods by owning ReplicaSet.
func (c *Controller) podsByReplicaSet(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (map[types.UID][]*corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	pods, err := c.podLister.Pods(d.Namespace).List(sel)
	if err != nil {
		return nil, err
	}
	m := map[types.UID][]*corev1.Pod{}
	for _, rs := range rsList {
		m[rs.UID] = nil
	}
	for _, p := range pods {
		ref := metav1.GetControllerOfNoCopy(p)
		if ref == nil {
			continue
		}
		if _, ok := m[ref.UID]; ok {
			m[ref.UID] = append(m[ref.UID], p)
		}
	}
	return m, nil
}
