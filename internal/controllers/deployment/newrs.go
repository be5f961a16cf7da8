package deployment

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

// findNewReplicaSet is the oldest ReplicaSet whose template is the
// Deployment's (pod-template-hash aside).
func findNewReplicaSet(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	sorted := slices.Clone(rsList)
	slices.SortFunc(sorted, func(a, b *appsv1.ReplicaSet) int {
		if byCreation(a, b) {
			return -1
		}
		if byCreation(b, a) {
			return 1
		}
		return 0
	})
	for _, rs := range sorted {
		if equalIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// allReplicaSets splits the Deployment's ReplicaSets into the new one
// (created when create is set and there is none) and the old ones, and
// brings revision annotations up to date.
func (c *Controller) allReplicaSets(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, []*appsv1.ReplicaSet, error) {
	existing := findNewReplicaSet(d, rsList)
	var oldRSs []*appsv1.ReplicaSet
	for _, rs := range rsList {
		if existing == nil || rs.UID != existing.UID {
			oldRSs = append(oldRSs, rs)
		}
	}
	newRS, err := c.newReplicaSet(ctx, d, existing, oldRSs, create)
	if err != nil {
		return nil, nil, err
	}
	return newRS, oldRSs, nil
}

// newReplicaSet updates an existing new ReplicaSet's annotations and
// minReadySeconds, or creates it with the next revision.
func (c *Controller) newReplicaSet(ctx context.Context, d *appsv1.Deployment, existing *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, error) {
	newRevision := strconv.FormatInt(maxRevision(oldRSs)+1, 10)
	if existing != nil {
		return c.syncExistingNewReplicaSet(ctx, d, existing, newRevision)
	}
	if !create {
		return nil, nil
	}
	template := *d.Spec.Template.DeepCopy()
	hash := ComputeHash(&template, d.Status.CollisionCount)
	template.Labels = withLabel(d.Spec.Template.Labels, PodTemplateHashLabel, hash)
	selector := d.Spec.Selector.DeepCopy()
	selector.MatchLabels = withLabel(selector.MatchLabels, PodTemplateHashLabel, hash)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: d.Name + "-" + hash, Namespace: d.Namespace, Labels: template.Labels,
			OwnerReferences: []metav1.OwnerReference{*podcontrol.NewControllerRef(d, DeploymentKind)},
		},
		Spec: appsv1.ReplicaSetSpec{Replicas: new(int32), MinReadySeconds: d.Spec.MinReadySeconds, Selector: selector, Template: template},
	}
	*rs.Spec.Replicas = newRSReplicas(d, append(slices.Clone(oldRSs), rs), rs)
	setNewReplicaSetAnnotations(d, rs, newRevision, false)
	created, err := c.client.AppsV1().ReplicaSets(d.Namespace).Create(ctx, rs, metav1.CreateOptions{})
	alreadyExists := false
	switch {
	case apierrors.IsAlreadyExists(err):
		alreadyExists = true
		found, gerr := c.rsLister.ReplicaSets(d.Namespace).Get(rs.Name)
		if gerr != nil {
			return nil, gerr
		}
		// Ours with our template: the new ReplicaSet our cache missed.
		if ref := metav1.GetControllerOfNoCopy(found); ref != nil && ref.UID == d.UID && equalIgnoreHash(&d.Spec.Template, &found.Spec.Template) {
			created, err = found, nil
			break
		}
		// A hash collision: the next sync hashes with another count.
		if d.Status.CollisionCount == nil {
			d.Status.CollisionCount = new(int32)
		}
		*d.Status.CollisionCount++
		_ = c.updateStatus(ctx, d)
		return nil, err
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		return nil, err
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", rs.Name, err)
		if hasProgressDeadline(d) {
			setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, FailedRSCreateReason, msg, c.clock.Now()))
			_ = c.updateStatus(ctx, d) // the create error is the one to report
		}
		c.recorder.Eventf(d, nil, corev1.EventTypeWarning, FailedRSCreateReason, "Create", msg)
		return nil, err
	}
	if !alreadyExists && replicasOf(created) > 0 {
		c.recorder.Eventf(d, nil, corev1.EventTypeNormal, "ScalingReplicaSet", "Scale", "Scaled up replica set %s from 0 to %d", created.Name, replicasOf(created))
	}
	needsUpdate := setDeploymentRevision(d, newRevision)
	if !alreadyExists && hasProgressDeadline(d) {
		setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, NewReplicaSetReason, fmt.Sprintf("Created new replica set %q", created.Name), c.clock.Now()))
		needsUpdate = true
	}
	if needsUpdate {
		return created, c.updateStatus(ctx, d)
	}
	return created, nil
}

func (c *Controller) syncExistingNewReplicaSet(ctx context.Context, d *appsv1.Deployment, existing *appsv1.ReplicaSet, newRevision string) (*appsv1.ReplicaSet, error) {
	rs := existing.DeepCopy()
	annotationsChanged := setNewReplicaSetAnnotations(d, rs, newRevision, true)
	if annotationsChanged || rs.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
		rs.Spec.MinReadySeconds = d.Spec.MinReadySeconds
		return c.client.AppsV1().ReplicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
	}
	needsUpdate := setDeploymentRevision(d, rs.Annotations[RevisionAnnotation])
	// A Deployment that never had a Progressing condition starts
	// measuring progress from the moment its new ReplicaSet is found.
	if hasProgressDeadline(d) && getCondition(d.Status, appsv1.DeploymentProgressing) == nil {
		setCondition(&d.Status, newCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, FoundNewRSReason, fmt.Sprintf("Found new replica set %q", rs.Name), c.clock.Now()))
		needsUpdate = true
	}
	if needsUpdate {
		return rs, c.updateStatus(ctx, d)
	}
	return rs, nil
}

func withLabel(m map[string]string, k, v string) map[string]string {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	out[k] = v
	return out
}

// setDeploymentRevision mirrors the new ReplicaSet's revision on the
// Deployment.
func setDeploymentRevision(d *appsv1.Deployment, rev string) bool {
	if d.Annotations[RevisionAnnotation] == rev {
		return false
	}
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[RevisionAnnotation] = rev
	return true
}

// skipCopy are the Deployment annotations a ReplicaSet never inherits.
var skipCopy = map[string]bool{
	corev1.LastAppliedConfigAnnotation: true, RevisionAnnotation: true, RevisionHistoryAnnotation: true,
	DesiredReplicasAnnotation: true, MaxReplicasAnnotation: true, rollbackToAnnotation: true,
}

// setNewReplicaSetAnnotations copies the Deployment's annotations, raises
// the revision (keeping a rolled-back-to ReplicaSet's earlier revisions
// in revision-history) and, for a ReplicaSet about to be created, the
// replica annotations. It reports whether anything changed.
func setNewReplicaSetAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, newRevision string, exists bool) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	for k, v := range d.Annotations {
		if cur, ok := rs.Annotations[k]; skipCopy[k] || (ok && cur == v) {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	oldRevision, had := rs.Annotations[RevisionAnnotation]
	oldInt, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			return false
		}
		oldInt = 0
	}
	newInt, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	if oldInt < newInt {
		rs.Annotations[RevisionAnnotation] = newRevision
		changed = true
		if had {
			appendRevisionHistory(rs, oldRevision)
		}
	}
	if !exists && setReplicasAnnotations(rs, desired(d), desired(d)+maxSurge(d)) {
		changed = true
	}
	return changed
}

// appendRevisionHistory adds old to revision-history, dropping the
// oldest entries to stay within 2000 characters.
func appendRevisionHistory(rs *appsv1.ReplicaSet, old string) {
	history := rs.Annotations[RevisionHistoryAnnotation]
	revs := strings.Split(history, ",")
	if revs[0] == "" {
		rs.Annotations[RevisionHistoryAnnotation] = old
		return
	}
	total := len(history) + len(old) + 1
	start := 0
	for total > maxRevHistoryLengthInChars && start < len(revs) {
		total -= len(revs[start]) + 1
		start++
	}
	if total <= maxRevHistoryLengthInChars {
		rs.Annotations[RevisionHistoryAnnotation] = strings.Join(append(revs[start:], old), ",")
	}
}

// newRSReplicas is the size the new ReplicaSet may grow to now: up to
// the surge limit for a rolling update, everything for recreate.
func newRSReplicas(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) int32 {
	if !isRollingUpdate(d) {
		return desired(d)
	}
	maxTotal := desired(d) + maxSurge(d)
	current := specReplicas(allRSs)
	if current >= maxTotal {
		return replicasOf(newRS)
	}
	up := min(maxTotal-current, desired(d)-replicasOf(newRS))
	return replicasOf(newRS) + up
}
