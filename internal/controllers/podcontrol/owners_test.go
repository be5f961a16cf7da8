package podcontrol

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// TestOwners: a controllerRef resolves only to an owner of the kind with
// the same UID; an orphan concerns the owners whose non-empty selector
// matches it.
func TestOwners(t *testing.T) {
	rs := func(name string, sel map[string]string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("u-" + name)},
			Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: sel}}}
	}
	all := []*appsv1.ReplicaSet{rs("web", map[string]string{"app": "web"}), rs("any", nil), rs("db", map[string]string{"app": "db"})}
	o := Owners[*appsv1.ReplicaSet]{
		Kind: "ReplicaSet",
		Get: func(_, name string) (*appsv1.ReplicaSet, error) {
			for _, r := range all {
				if r.Name == name {
					return r, nil
				}
			}
			return nil, errors.NewNotFound(schema.GroupResource{}, name)
		},
		List:     func(string) ([]*appsv1.ReplicaSet, error) { return all, nil },
		Selector: func(r *appsv1.ReplicaSet) *metav1.LabelSelector { return r.Spec.Selector },
	}
	tests := []struct {
		name string
		ref  *metav1.OwnerReference
		want bool
	}{
		{"same uid", &metav1.OwnerReference{Kind: "ReplicaSet", Name: "web", UID: "u-web"}, true},
		{"recreated", &metav1.OwnerReference{Kind: "ReplicaSet", Name: "web", UID: "old"}, false},
		{"other kind", &metav1.OwnerReference{Kind: "StatefulSet", Name: "web", UID: "u-web"}, false},
		{"missing", &metav1.OwnerReference{Kind: "ReplicaSet", Name: "gone", UID: "u-gone"}, false},
		{"no ref", nil, false},
	}
	for _, tt := range tests {
		if _, ok := o.Resolve("ns", tt.ref); ok != tt.want {
			t.Errorf("%s: resolved %v, want %v", tt.name, ok, tt.want)
		}
	}
	got := o.Selecting("ns", map[string]string{"app": "web"})
	if len(got) != 1 || got[0].Name != "web" {
		t.Errorf("selecting = %v, want only web (an empty selector selects nothing)", got)
	}
}

// TestFromEvent unwraps a tombstone.
func TestFromEvent(t *testing.T) {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	for _, obj := range []any{p, cache.DeletedFinalStateUnknown{Key: "ns/p", Obj: p}} {
		if got, ok := FromEvent[*corev1.Pod](obj); !ok || got != p {
			t.Errorf("FromEvent(%T) = %v, %v", obj, got, ok)
		}
	}
	if _, ok := FromEvent[*corev1.Pod](&corev1.Node{}); ok {
		t.Error("a Node is not a Pod")
	}
}
