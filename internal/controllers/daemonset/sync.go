package daemonset

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/kapi-dev/kapi/internal/controllers/history"
	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

// templateHash is upstream's ComputeHash of the template and collision
// count, the value of the controller-revision-hash label.
func templateHash(t *corev1.PodTemplateSpec, collisions *int32) string {
	h := fnv.New32a()
	history.DeepHashObject(h, *t)
	if collisions != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisions))
		h.Write(b)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// constructHistory finds the revision matching the template (creating
// it, or renumbering it to be the newest) and the older ones.
func (c *Controller) constructHistory(ctx context.Context, ds *appsv1.DaemonSet, selector labels.Selector) (cur *appsv1.ControllerRevision, old []*appsv1.ControllerRevision, err error) {
	revs, err := c.history.Claim(ctx, ds, dsKind, selector, func(ctx context.Context) (metav1.Object, error) {
		return c.client.AppsV1().DaemonSets(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
	})
	if err != nil {
		return nil, nil, err
	}
	patch, err := history.TemplatePatch(ds.Spec.Template)
	if err != nil {
		return nil, nil, err
	}
	var matching []*appsv1.ControllerRevision
	var maxOld int64
	for _, r := range revs {
		if bytes.Equal(r.Data.Raw, patch) {
			matching = append(matching, r)
			continue
		}
		old = append(old, r)
		maxOld = max(maxOld, r.Revision)
	}
	next := maxOld + 1
	if len(matching) == 0 {
		cur, err = c.snapshot(ctx, ds, patch, next)
		return cur, old, err
	}
	// Duplicates of the current revision keep the newest number.
	history.Sort(matching)
	cur = matching[len(matching)-1]
	for _, dup := range matching[:len(matching)-1] {
		if err := c.client.AppsV1().ControllerRevisions(dup.Namespace).Delete(ctx, dup.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return nil, nil, err
		}
	}
	if cur.Revision < next {
		cur, err = c.history.SetRevision(ctx, cur, next)
	}
	return cur, old, err
}

// snapshot creates the revision named <ds>-<hash>; a name taken by other
// data bumps status.collisionCount and fails so the sync retries.
func (c *Controller) snapshot(ctx context.Context, ds *appsv1.DaemonSet, patch []byte, revision int64) (*appsv1.ControllerRevision, error) {
	hash := templateHash(&ds.Spec.Template, ds.Status.CollisionCount)
	lbls := map[string]string{}
	for k, v := range ds.Spec.Template.Labels {
		lbls[k] = v
	}
	lbls[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	cr := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: ds.Name + "-" + hash, Namespace: ds.Namespace, Labels: lbls, Annotations: ds.Annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, dsKind)}},
		Data:     runtime.RawExtension{Raw: patch},
		Revision: revision,
	}
	created, err := c.client.AppsV1().ControllerRevisions(ds.Namespace).Create(ctx, cr, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return created, err
	}
	existing, gerr := c.client.AppsV1().ControllerRevisions(ds.Namespace).Get(ctx, cr.Name, metav1.GetOptions{})
	if gerr != nil {
		return nil, gerr
	}
	if ref := metav1.GetControllerOf(existing); ref != nil && ref.UID == ds.UID && bytes.Equal(existing.Data.Raw, patch) {
		return existing, nil
	}
	fresh, gerr := c.client.AppsV1().DaemonSets(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
	if gerr != nil {
		return nil, gerr
	}
	n := int32(0)
	if fresh.Status.CollisionCount != nil {
		n = *fresh.Status.CollisionCount
	}
	n++
	fresh.Status.CollisionCount = &n
	if _, uerr := c.client.AppsV1().DaemonSets(ds.Namespace).UpdateStatus(ctx, fresh, metav1.UpdateOptions{}); uerr != nil {
		return nil, uerr
	}
	return nil, err
}

// cleanupHistory deletes the oldest revisions no live Pod uses beyond
// revisionHistoryLimit.
func (c *Controller) cleanupHistory(ctx context.Context, ds *appsv1.DaemonSet, selector labels.Selector, old []*appsv1.ControllerRevision, cur *appsv1.ControllerRevision) error {
	limit := int32(10)
	if ds.Spec.RevisionHistoryLimit != nil {
		limit = *ds.Spec.RevisionHistoryLimit
	}
	if len(old) <= int(limit) {
		return nil
	}
	byNode, err := c.podsByNode(ctx, ds, selector)
	if err != nil {
		return err
	}
	live := map[string]bool{cur.Name: true}
	for _, pods := range byNode {
		for _, p := range pods {
			if h := p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; h != "" {
				live[ds.Name+"-"+h] = true
			}
		}
	}
	history.Sort(old)
	return c.history.Truncate(ctx, old, live, limit)
}

// podsByNode maps node names to the set's Pods, by bound node or node
// affinity target; it adopts orphans the selector matches and releases
// Pods that stopped matching, as upstream's getDaemonPods.
func (c *Controller) podsByNode(ctx context.Context, ds *appsv1.DaemonSet, selector labels.Selector) (map[string][]*corev1.Pod, error) {
	all, err := c.pods.Pods(ds.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	m := &podcontrol.RefManager{
		Owner: ds, OwnerGVK: metav1.GroupVersionKind(dsKind), Selector: selector,
		CanAdopt: podcontrol.RecheckDeletion(func(ctx context.Context) (metav1.Object, error) {
			return c.client.AppsV1().DaemonSets(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
		}, dsKind.Kind, ds),
	}
	pods, err := podcontrol.ClaimPatching(ctx, m, all, (&podcontrol.Control{Client: c.client}).PatchPod)
	if err != nil {
		return nil, err
	}
	out := map[string][]*corev1.Pod{}
	for _, p := range pods {
		if n := targetNode(p); n != "" {
			out[n] = append(out[n], p)
		}
	}
	return out, nil
}
