// Package history keeps the ControllerRevisions of a StatefulSet or a
// DaemonSet: snapshots of the Pod template named <parent>-<hash>,
// numbered by revision, labelled with controller.kubernetes.io/hash and
// owned by the parent, created with a collision count bumped when a name
// is taken by a different snapshot, and truncated to
// revisionHistoryLimit, as kube-controller-manager's history package
// does.
package history

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash"
	"hash/fnv"
	"sort"
	"strconv"

	"github.com/davecgh/go-spew/spew"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"

	"github.com/kapi-dev/kapi/internal/controllers/podcontrol"
)

// HashLabel is the label holding a revision's hash.
const HashLabel = "controller.kubernetes.io/hash"

// maxPrefix keeps <prefix>-<hash> within a name's 253 characters.
const maxPrefix = 223

// DeepHashObject writes obj into h the way upstream's hashutil does (a
// sorted, method-free spew dump), so hashes equal kube-controller-
// manager's for the same object.
func DeepHashObject(h hash.Hash, obj any) {
	h.Reset()
	printer := spew.ConfigState{Indent: " ", SortKeys: true, DisableMethods: true, SpewKeys: true}
	printer.Fprintf(h, "%#v", obj)
}

// Hash is a revision's hash: its raw data (or object), then the
// collision count if any, safe-encoded.
func Hash(cr *appsv1.ControllerRevision, probe *int32) string {
	h := fnv.New32a()
	if len(cr.Data.Raw) > 0 {
		h.Write(cr.Data.Raw)
	}
	if cr.Data.Object != nil {
		DeepHashObject(h, cr.Data.Object)
	}
	if probe != nil {
		h.Write([]byte(strconv.FormatInt(int64(*probe), 10)))
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// Name is <prefix>-<hash>, the prefix cut to fit.
func Name(prefix, hash string) string {
	if len(prefix) > maxPrefix {
		prefix = prefix[:maxPrefix]
	}
	return prefix + "-" + hash
}

// New builds the revision of parent holding data, owned by it through a
// controller reference, labelled with templateLabels and the hash.
func New(parent metav1.Object, kind schema.GroupVersionKind, templateLabels map[string]string, data []byte, revision int64, collisionCount *int32) *appsv1.ControllerRevision {
	lbls := make(map[string]string, len(templateLabels)+1)
	for k, v := range templateLabels {
		lbls[k] = v
	}
	cr := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       parent.GetNamespace(),
			Labels:          lbls,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(parent, kind)},
		},
		Data:     runtime.RawExtension{Raw: data},
		Revision: revision,
	}
	h := Hash(cr, collisionCount)
	cr.Name = Name(parent.GetName(), h)
	cr.Labels[HashLabel] = h
	return cr
}

// Equal reports whether two revisions hold the same data.
func Equal(a, b *appsv1.ControllerRevision) bool {
	if a == nil || b == nil {
		return a == b
	}
	if bytes.Equal(a.Data.Raw, b.Data.Raw) {
		return true
	}
	var x, y any
	if json.Unmarshal(a.Data.Raw, &x) != nil || json.Unmarshal(b.Data.Raw, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// FindEqual returns the revisions holding needle's data.
func FindEqual(revisions []*appsv1.ControllerRevision, needle *appsv1.ControllerRevision) []*appsv1.ControllerRevision {
	var out []*appsv1.ControllerRevision
	for _, r := range revisions {
		if Equal(r, needle) {
			out = append(out, r)
		}
	}
	return out
}

// Sort orders revisions by number, then creation, then name.
func Sort(revisions []*appsv1.ControllerRevision) {
	sort.SliceStable(revisions, func(i, j int) bool {
		a, b := revisions[i], revisions[j]
		if a.Revision != b.Revision {
			return a.Revision < b.Revision
		}
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
}

// Next is the number after the highest of sorted revisions.
func Next(sorted []*appsv1.ControllerRevision) int64 {
	if len(sorted) == 0 {
		return 1
	}
	return sorted[len(sorted)-1].Revision + 1
}

// History reads revisions from a lister and writes them with a client.
type History struct {
	Client kubernetes.Interface
	Lister appslisters.ControllerRevisionLister
}

// Claim returns parent's revisions: those it controls that its selector
// matches, after adopting matching orphans and releasing controlled
// ones that stopped matching (upstream's ClaimControllerRevisions);
// fresh re-reads parent from the server before any adoption.
func (h *History) Claim(ctx context.Context, parent metav1.Object, kind schema.GroupVersionKind, selector labels.Selector,
	fresh func(context.Context) (metav1.Object, error)) ([]*appsv1.ControllerRevision, error) {
	all, err := h.Lister.ControllerRevisions(parent.GetNamespace()).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	m := &podcontrol.RefManager{
		Owner: parent, OwnerGVK: metav1.GroupVersionKind(kind), Selector: selector,
		CanAdopt: podcontrol.RecheckDeletion(fresh, kind.Kind, parent),
	}
	return podcontrol.ClaimPatching(ctx, m, all, func(ctx context.Context, ns, name string, body []byte) error {
		_, err := h.Client.AppsV1().ControllerRevisions(ns).Patch(ctx, name, types.StrategicMergePatchType, body, metav1.PatchOptions{})
		return err
	})
}

// Create stores cr under the name its hash and *collisionCount give; a
// name held by a revision with other data bumps *collisionCount and
// tries again, one holding the same data is returned as is.
func (h *History) Create(ctx context.Context, parent metav1.Object, cr *appsv1.ControllerRevision, collisionCount *int32) (*appsv1.ControllerRevision, error) {
	if collisionCount == nil {
		return nil, fmt.Errorf("collisionCount must not be nil")
	}
	clone := cr.DeepCopy()
	for {
		h2 := Hash(clone, collisionCount)
		clone.Name = Name(parent.GetName(), h2)
		clone.Labels[HashLabel] = h2
		created, err := h.Client.AppsV1().ControllerRevisions(parent.GetNamespace()).Create(ctx, clone, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			return created, err
		}
		existing, gerr := h.Client.AppsV1().ControllerRevisions(parent.GetNamespace()).Get(ctx, clone.Name, metav1.GetOptions{})
		if gerr != nil {
			return nil, gerr
		}
		if ref := metav1.GetControllerOf(existing); ref != nil && ref.UID == parent.GetUID() && Equal(existing, clone) {
			return existing, nil
		}
		*collisionCount++
	}
}

// SetRevision gives an existing revision a new number.
func (h *History) SetRevision(ctx context.Context, cr *appsv1.ControllerRevision, revision int64) (*appsv1.ControllerRevision, error) {
	if cr.Revision == revision {
		return cr, nil
	}
	c := cr.DeepCopy()
	c.Revision = revision
	return h.Client.AppsV1().ControllerRevisions(c.Namespace).Update(ctx, c, metav1.UpdateOptions{})
}

// Truncate deletes the oldest revisions not in live until at most limit
// of them are left, as upstream's truncateHistory does.
func (h *History) Truncate(ctx context.Context, sorted []*appsv1.ControllerRevision, live map[string]bool, limit int32) error {
	var dead []*appsv1.ControllerRevision
	for _, r := range sorted {
		if !live[r.Name] {
			dead = append(dead, r)
		}
	}
	excess := len(dead) - int(limit)
	for i := 0; i < excess; i++ {
		err := h.Client.AppsV1().ControllerRevisions(dead[i].Namespace).Delete(ctx, dead[i].Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// TemplatePatch is the data a revision holds: the parent's
// spec.template, marked to replace the whole template when applied as a
// strategic merge patch, as upstream stores it.
func TemplatePatch(template any) ([]byte, error) {
	raw, err := json.Marshal(template)
	if err != nil {
		return nil, err
	}
	var tmpl map[string]any
	if err := json.Unmarshal(raw, &tmpl); err != nil {
		return nil, err
	}
	tmpl["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": tmpl}})
}
