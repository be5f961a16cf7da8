package clusterroleaggregation

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// TestSyncAll: one call completes a chain of aggregated roles (admin
// gathers edit, which gathers view), writes only the roles that change,
// and returns once the informer's cache holds the result.
// TestSyncAll reads the roles through the client, and through ListRoles
// as a server reading its own storage does: the roles ListRoles hands
// out are shared and must come back unchanged.
func TestSyncAll(t *testing.T) {
	for _, inProcess := range []bool{false, true} {
		t.Run(map[bool]string{false: "client", true: "ListRoles"}[inProcess], func(t *testing.T) { testSyncAll(t, inProcess) })
	}
}

func testSyncAll(t *testing.T, inProcess bool) {
	ctx, cancel := context.WithCancel(context.Background())
	toView := map[string]string{"to-view": "true"}
	toEdit := map[string]string{"to-edit": "true"}
	toAdmin := map[string]string{"to-admin": "true"}
	view := aggregated("view", toView)
	view.Labels = toEdit
	edit := aggregated("edit", toEdit)
	edit.Labels = toAdmin
	done := aggregated("done", map[string]string{"none": "true"})
	cs := fake.NewClientset(
		aggregated("admin", toAdmin), edit, view, done,
		clusterRole("v", toView, rule("get", "pods")),
		clusterRole("e", toEdit, rule("update", "pods")),
		clusterRole("a", toAdmin, rule("delete", "pods")),
	)
	factory := informers.NewSharedInformerFactory(cs, 0)
	c := New(cs, factory.Rbac().V1().ClusterRoles())
	factory.Start(ctx.Done())
	t.Cleanup(func() { cancel(); factory.Shutdown() })

	var shared, pristine []rbacv1.ClusterRole
	if inProcess {
		c.ListRoles = func(ctx context.Context) ([]rbacv1.ClusterRole, error) {
			list, err := cs.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			shared, pristine = list.Items, list.DeepCopy().Items
			return shared, nil
		}
	}
	cs.ClearActions()
	if err := c.SyncAll(ctx); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(pristine, shared); d != "" {
		t.Errorf("SyncAll changed the roles ListRoles handed out (-before +after):\n%s", d)
	}
	want := map[string][]rbacv1.PolicyRule{
		"view":  {rule("get", "pods")},
		"edit":  {rule("update", "pods"), rule("get", "pods")},
		"admin": {rule("delete", "pods"), rule("update", "pods"), rule("get", "pods")},
	}
	for name, rules := range want {
		cached, err := c.lister.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(rules, cached.Rules); d != "" {
			t.Errorf("%s in the cache (-want +got):\n%s", name, d)
		}
	}
	var patched []string
	for _, a := range cs.Actions() {
		if a.GetVerb() == "patch" {
			patched = append(patched, a.(interface{ GetName() string }).GetName())
		}
	}
	slices.Sort(patched) // written in parallel
	if d := cmp.Diff([]string{"admin", "edit", "view"}, patched); d != "" {
		t.Errorf("applied roles (-want +got):\n%s", d)
	}

	// Nothing left to do: a second call writes nothing.
	cs.ClearActions()
	if err := c.SyncAll(ctx); err != nil {
		t.Fatal(err)
	}
	for _, a := range cs.Actions() {
		if a.GetVerb() != "list" && a.GetVerb() != "watch" {
			t.Errorf("second call: %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
}
