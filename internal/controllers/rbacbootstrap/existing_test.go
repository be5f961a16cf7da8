package rbacbootstrap

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestReconcileFreshClusterReadsByList: on an empty cluster the objects
// are listed once per kind and created, never read one by one, and each
// namespace is created once.
func TestReconcileFreshClusterReadsByList(t *testing.T) {
	cs := fake.NewClientset()
	if err := Reconcile(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, a := range cs.Actions() {
		counts[a.GetVerb()+" "+a.GetResource().Resource]++
	}
	for _, r := range []string{"clusterroles", "clusterrolebindings", "roles", "rolebindings"} {
		if n := counts["get "+r]; n != 0 {
			t.Errorf("%d gets of %s, want none", n, r)
		}
		if n := counts["list "+r]; n != 1 {
			t.Errorf("%d lists of %s, want 1", n, r)
		}
	}
	if n, want := counts["create namespaces"], 2; n != want {
		t.Errorf("%d namespace creates, want %d (kube-system, kube-public)", n, want)
	}
}

// TestReconcileObjectCreatedAfterList: an object missing from the list but
// present at create time is reconciled as an existing one.
func TestReconcileObjectCreatedAfterList(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset(clusterRole("system:basic-user", "true"))
	cs.PrependReactor("list", "clusterroles", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, &rbacv1.ClusterRoleList{}, nil
	})
	if err := Reconcile(ctx, cs); err != nil {
		t.Fatal(err)
	}
	got, err := cs.RbacV1().ClusterRoles().Get(ctx, "system:basic-user", metav1.GetOptions{})
	if err != nil || len(got.Rules) == 0 {
		t.Errorf("system:basic-user: %v, rules %+v; want the bootstrap rules added", err, got.Rules)
	}
}
