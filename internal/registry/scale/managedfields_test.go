package scale_test

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func fieldsEntry(manager, apiVersion, subresource, fields string) metav1.ManagedFieldsEntry {
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: apiVersion,
		Subresource: subresource, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
}

const (
	replicasFields = `{"f:spec":{"f:replicas":{}}}`
	selectorFields = `{"f:spec":{"f:selector":{}}}`
)

// managers are the "manager apiVersion subresource fields" of entries.
func managers(entries []metav1.ManagedFieldsEntry) map[string]string {
	out := map[string]string{}
	for _, e := range entries {
		out[e.Manager] = e.APIVersion + " " + e.Subresource + " " + string(e.FieldsV1.Raw)
	}
	return out
}

// TestManagedFields: the parent's owner of spec.replicas owns the Scale's;
// a Scale writer takes the parent's spec.replicas.
func TestManagedFields(t *testing.T) {
	store, r, ctx, d := setup(t)
	d.ManagedFields = []metav1.ManagedFieldsEntry{
		fieldsEntry("A", "apps/v1", "", replicasFields),
		fieldsEntry("B", "apps/v1", "", selectorFields),
	}
	if _, _, err := store.Update(ctx, "web", rest.DefaultUpdatedObjectInfo(d), nil, nil, false, nil); err != nil {
		t.Fatal(err)
	}
	obj, err := r.Get(ctx, "web", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mf := obj.(*autoscalingv1.Scale).ManagedFields; len(mf) != 0 {
		t.Errorf("a Scale read carries managedFields %v; upstream shows none", mf)
	}

	// The field manager of a Scale write sees the parent's owners of
	// replicas as owners of the Scale's.
	written := &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", ManagedFields: []metav1.ManagedFieldsEntry{
			fieldsEntry("S", "autoscaling/v1", "scale", replicasFields),
		}},
		Spec: autoscalingv1.ScaleSpec{Replicas: 7},
	}
	seen := &seenOldScale{written: written}
	if _, _, err := r.Update(ctx, "web", seen, nil, nil, false, nil); err != nil {
		t.Fatal(err)
	}
	got := managers(seen.old)
	if want := map[string]string{"A": "autoscaling/v1  " + replicasFields}; len(got) != 1 || got["A"] != want["A"] {
		t.Errorf("the old Scale's managedFields %v, want %v", got, want)
	}
	parent, err := store.Get(ctx, "web", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got = managers(parent.(*appsv1.Deployment).ManagedFields)
	want := map[string]string{"B": "apps/v1  " + selectorFields, "S": "apps/v1 scale " + replicasFields}
	if len(got) != len(want) || got["B"] != want["B"] || got["S"] != want["S"] {
		t.Errorf("parent managedFields %v, want %v", got, want)
	}
}

// seenOldScale writes written and records the managed fields of the old
// Scale the update was given.
type seenOldScale struct {
	written *autoscalingv1.Scale
	old     []metav1.ManagedFieldsEntry
}

func (s *seenOldScale) Preconditions() *metav1.Preconditions { return nil }

func (s *seenOldScale) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	s.old = old.(*autoscalingv1.Scale).ManagedFields
	return s.written, nil
}
