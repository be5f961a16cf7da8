package controlplane

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac/bootstrappolicy"
)

// TestSeededRBACLooksCreatedThroughTheAPI: the bootstrap policy written
// into storage before the server serves is what the loopback client's
// creates would have left: the same content and the same managed fields
// (manager from the default user agent, operation Update). A copy of a
// bootstrap object created through the API is the reference.
func TestSeededRBACLooksCreatedThroughTheAPI(t *testing.T) {
	logs := &lockedBuffer{}
	s := startServer(t, "memory", func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(logs, nil)) })
	if strings.Contains(logs.String(), "reconciling it through the API") {
		t.Fatalf("the policy was not seeded:\n%s", logs)
	}
	cs, err := kubernetes.NewForConfig(s.restCfg) // the default user agent, as the loopback client
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	roles := cs.RbacV1().ClusterRoles()
	for _, want := range bootstrappolicy.ClusterRoles() {
		if want.Name != "system:basic-user" && want.Name != "admin" {
			continue
		}
		seeded, err := roles.Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref := want.DeepCopy()
		ref.Name = "copy-of-" + want.Name
		if _, err := roles.Create(ctx, ref, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		created, err := roles.Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(created.Labels, seeded.Labels); d != "" {
			t.Errorf("%s labels (-api +seeded):\n%s", want.Name, d)
		}
		if d := cmp.Diff(created.Annotations, seeded.Annotations); d != "" {
			t.Errorf("%s annotations (-api +seeded):\n%s", want.Name, d)
		}
		if want.AggregationRule == nil {
			if d := cmp.Diff(created.Rules, seeded.Rules); d != "" {
				t.Errorf("%s rules (-api +seeded):\n%s", want.Name, d)
			}
		}
		if d := cmp.Diff(managedEntry(t, created, "Update"), managedEntry(t, seeded, "Update")); d != "" {
			t.Errorf("%s managed fields (-api +seeded):\n%s", want.Name, d)
		}
		if want.AggregationRule != nil {
			// The aggregation controller's apply, seeded too.
			aggregated := awaitAggregated(t, cs, ref.Name)
			if d := cmp.Diff(aggregated.Rules, seeded.Rules); d != "" {
				t.Errorf("%s aggregated rules (-api +seeded):\n%s", want.Name, d)
			}
			if d := cmp.Diff(managedEntry(t, aggregated, "Apply"), managedEntry(t, seeded, "Apply")); d != "" {
				t.Errorf("%s aggregation's managed fields (-api +seeded):\n%s", want.Name, d)
			}
		}
	}
}

// awaitAggregated waits for the aggregation controller's apply to the
// named role.
func awaitAggregated(t *testing.T, cs kubernetes.Interface, name string) *rbacv1.ClusterRole {
	t.Helper()
	var role *rbacv1.ClusterRole
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		r, err := cs.RbacV1().ClusterRoles().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		role = r
		for _, e := range r.ManagedFields {
			if e.Operation == metav1.ManagedFieldsOperationApply {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("%s was not aggregated: %v", name, err)
	}
	return role
}

// managedEntry is obj's one entry of operation op, without its time.
func managedEntry(t *testing.T, obj *rbacv1.ClusterRole, op metav1.ManagedFieldsOperationType) metav1.ManagedFieldsEntry {
	t.Helper()
	var found []metav1.ManagedFieldsEntry
	for _, e := range obj.ManagedFields {
		if e.Operation == op {
			e.Time = nil
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s: managed fields %+v, want one %s entry", obj.Name, obj.ManagedFields, op)
	}
	return found[0]
}
