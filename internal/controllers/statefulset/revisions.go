package statefulset

import (
	"context"
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/controllers/history"
)

// newRevision snapshots set's template as revision number rev.
func newRevision(set *appsv1.StatefulSet, rev int64, collisions *int32) (*appsv1.ControllerRevision, error) {
	patch, err := history.TemplatePatch(set.Spec.Template)
	if err != nil {
		return nil, err
	}
	cr := history.New(set, setKind, set.Spec.Template.Labels, patch, rev, collisions)
	if len(set.Annotations) > 0 {
		cr.Annotations = make(map[string]string, len(set.Annotations))
		for k, v := range set.Annotations {
			cr.Annotations[k] = v
		}
	}
	return cr, nil
}

// applyRevision is set with the template cr recorded.
func applyRevision(set *appsv1.StatefulSet, cr *appsv1.ControllerRevision) (*appsv1.StatefulSet, error) {
	var data struct {
		Spec struct {
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(cr.Data.Raw, &data); err != nil {
		return nil, err
	}
	out := set.DeepCopy()
	out.Spec.Template = data.Spec.Template
	return out, nil
}

// revisions finds (or records) the revision of the set's template now,
// the update revision, and the current one status names, as upstream's
// getStatefulSetRevisions: an older revision with the same template is
// renumbered rather than duplicated.
func (c *Controller) revisions(ctx context.Context, set *appsv1.StatefulSet, revisions []*appsv1.ControllerRevision) (current, update *appsv1.ControllerRevision, collisions int32, err error) {
	history.Sort(revisions)
	if set.Status.CollisionCount != nil {
		collisions = *set.Status.CollisionCount
	}
	update, err = newRevision(set, history.Next(revisions), &collisions)
	if err != nil {
		return nil, nil, 0, err
	}
	equal := history.FindEqual(revisions, update)
	switch {
	case len(equal) > 0 && revisions[len(revisions)-1].Name == equal[len(equal)-1].Name:
		update = revisions[len(revisions)-1]
	case len(equal) > 0:
		update, err = c.history.SetRevision(ctx, equal[len(equal)-1], update.Revision)
	default:
		update, err = c.history.Create(ctx, set, update, &collisions)
	}
	if err != nil {
		return nil, nil, collisions, err
	}
	for _, r := range revisions {
		if r.Name == set.Status.CurrentRevision {
			current = r
		}
	}
	if current == nil {
		current = update
	}
	return current, update, collisions, nil
}

// truncate deletes revisions past revisionHistoryLimit that no Pod, nor
// the current or update revision, uses.
func (c *Controller) truncate(ctx context.Context, set *appsv1.StatefulSet, pods []*corev1.Pod, revisions []*appsv1.ControllerRevision, current, update *appsv1.ControllerRevision) error {
	live := map[string]bool{current.Name: true, update.Name: true}
	for _, p := range pods {
		live[revisionOf(p)] = true
	}
	limit := int32(10)
	if set.Spec.RevisionHistoryLimit != nil {
		limit = *set.Spec.RevisionHistoryLimit
	}
	return c.history.Truncate(ctx, revisions, live, limit)
}

// writeStatus stores status when it differs from what the set has.
func (c *Controller) writeStatus(ctx context.Context, set *appsv1.StatefulSet, status *appsv1.StatefulSetStatus) error {
	completeRollingUpdate(set, status)
	if statusEqual(&set.Status, status) {
		return nil
	}
	s := set.DeepCopy()
	s.Status = *status
	_, err := c.client.AppsV1().StatefulSets(s.Namespace).UpdateStatus(ctx, s, metav1.UpdateOptions{})
	return err
}

// completeRollingUpdate makes the update revision current once every
// Pod runs it and is ready.
func completeRollingUpdate(set *appsv1.StatefulSet, status *appsv1.StatefulSetStatus) {
	if set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
		status.UpdatedReplicas == status.Replicas && status.ReadyReplicas == status.Replicas {
		status.CurrentReplicas = status.UpdatedReplicas
		status.CurrentRevision = status.UpdateRevision
	}
}

func statusEqual(a, b *appsv1.StatefulSetStatus) bool {
	return a.ObservedGeneration == b.ObservedGeneration && a.Replicas == b.Replicas &&
		a.ReadyReplicas == b.ReadyReplicas && a.CurrentReplicas == b.CurrentReplicas &&
		a.UpdatedReplicas == b.UpdatedReplicas && a.AvailableReplicas == b.AvailableReplicas &&
		a.CurrentRevision == b.CurrentRevision && a.UpdateRevision == b.UpdateRevision &&
		ptrEq(a.CollisionCount, b.CollisionCount)
}

func ptrEq(a, b *int32) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
