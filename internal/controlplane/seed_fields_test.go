package controlplane

import (
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestSeededFieldsRemembered: the same source object, or one equal to
// one seeded before, takes the remembered managed fields, stamped now; a
// different one is computed again.
func TestSeededFieldsRemembered(t *testing.T) {
	gvk := rbacv1.SchemeGroupVersion.WithKind("ClusterRole")
	calls := 0
	compute := func(o runtime.Object) (runtime.Object, error) {
		calls++
		r := o.(*rbacv1.ClusterRole)
		r.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate,
			Time: &metav1.Time{Time: time.Unix(1, 0)}, FieldsV1: &metav1.FieldsV1{Raw: []byte(r.Rules[0].Verbs[0])}}}
		return r, nil
	}
	role := func(verb string) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "test-seeded-fields-" + t.Name()},
			Rules: []rbacv1.PolicyRule{{Verbs: []string{verb}}}}
	}
	seedAs := func(src *rbacv1.ClusterRole) *rbacv1.ClusterRole {
		t.Helper()
		prepare := func() runtime.Object { return src.DeepCopy() }
		out, err := withManagedFields(gvk, "m", seedObject{obj: src}, prepare, compute)
		if err != nil {
			t.Fatal(err)
		}
		return out.(*rbacv1.ClusterRole)
	}
	get := role("get")
	first := seedAs(get)
	second := seedAs(role("get"))
	if again := seedAs(get); string(again.ManagedFields[0].FieldsV1.Raw) != "get" {
		t.Errorf("same source: fields %q, want %q", again.ManagedFields[0].FieldsV1.Raw, "get")
	}
	if calls != 1 {
		t.Fatalf("computed %d times for equal objects, want 1", calls)
	}
	if got := string(second.ManagedFields[0].FieldsV1.Raw); got != "get" {
		t.Errorf("remembered fields %q, want %q", got, "get")
	}
	if !second.ManagedFields[0].Time.After(first.ManagedFields[0].Time.Time) {
		t.Errorf("remembered entry's time %v, want now", second.ManagedFields[0].Time)
	}
	if &second.ManagedFields[0] == &first.ManagedFields[0] {
		t.Error("remembered object shared, want a copy")
	}
	third := seedAs(role("list"))
	if calls != 2 || string(third.ManagedFields[0].FieldsV1.Raw) != "list" {
		t.Errorf("changed object: computed %d times, fields %q; want 2, %q", calls, third.ManagedFields[0].FieldsV1.Raw, "list")
	}
}
