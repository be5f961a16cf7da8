package clusterroleaggregation

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kapi-dev/kapi/internal/leakcheck"
)

// TestMain fails the package when the controller's goroutines outlive the
// tests.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Main(m, "internal/controllers/clusterroleaggregation."))
}

func rule(verb, resource string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: []string{verb}, APIGroups: []string{""}, Resources: []string{resource}}
}

func clusterRole(name string, labels map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
}

func aggregated(name string, selectors ...map[string]string) *rbacv1.ClusterRole {
	r := clusterRole(name, nil)
	r.AggregationRule = &rbacv1.AggregationRule{}
	for _, s := range selectors {
		r.AggregationRule.ClusterRoleSelectors = append(r.AggregationRule.ClusterRoleSelectors, metav1.LabelSelector{MatchLabels: s})
	}
	return r
}

func TestAggregate(t *testing.T) {
	view := map[string]string{"view": "true"}
	edit := map[string]string{"edit": "true"}
	tests := []struct {
		name  string
		roles []*rbacv1.ClusterRole
		agg   *rbacv1.ClusterRole
		want  []rbacv1.PolicyRule
	}{
		{"nothing matches", []*rbacv1.ClusterRole{clusterRole("x", nil, rule("get", "pods"))}, aggregated("agg", view), []rbacv1.PolicyRule{}},
		{"matched roles by name", []*rbacv1.ClusterRole{
			clusterRole("b", view, rule("get", "b")),
			clusterRole("a", view, rule("get", "a"), rule("list", "a")),
			clusterRole("c", nil, rule("get", "c")),
		}, aggregated("agg", view), []rbacv1.PolicyRule{rule("get", "a"), rule("list", "a"), rule("get", "b")}},
		{"selector by selector, duplicates once", []*rbacv1.ClusterRole{
			clusterRole("a", view, rule("get", "pods")),
			clusterRole("z", edit, rule("update", "pods"), rule("get", "pods")),
			clusterRole("m", edit, rule("update", "pods")),
		}, aggregated("agg", edit, view), []rbacv1.PolicyRule{rule("update", "pods"), rule("get", "pods")}},
		{"the role itself is skipped", []*rbacv1.ClusterRole{clusterRole("a", view, rule("get", "a"))},
			func() *rbacv1.ClusterRole {
				r := aggregated("agg", view)
				r.Labels = view
				r.Rules = []rbacv1.PolicyRule{rule("delete", "everything")}
				return r
			}(), []rbacv1.PolicyRule{rule("get", "a")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
			inf := factory.Rbac().V1().ClusterRoles()
			for _, r := range append(tt.roles, tt.agg) {
				if err := inf.Informer().GetStore().Add(r); err != nil {
					t.Fatal(err)
				}
			}
			c := New(fake.NewClientset(), inf)
			got, err := c.aggregate(tt.agg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}

// TestController runs the controller over a fake clientset: the aggregated
// role follows a labelled role appearing, changing and going away.
func TestController(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cs := fake.NewClientset(aggregated("agg", map[string]string{"agg": "yes"}), clusterRole("unlabelled", nil, rule("get", "secrets")))
	factory := informers.NewSharedInformerFactory(cs, 0)
	c := New(cs, factory.Rbac().V1().ClusterRoles())
	factory.Start(ctx.Done())
	done := make(chan struct{})
	go func() { defer close(done); c.Run(ctx, 2) }()
	t.Cleanup(func() { cancel(); <-done; factory.Shutdown() })

	roles := cs.RbacV1().ClusterRoles()
	waitRules := func(want ...rbacv1.PolicyRule) {
		t.Helper()
		var got []rbacv1.PolicyRule
		err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			r, err := roles.Get(ctx, "agg", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			got = r.Rules
			return apiequality.Semantic.DeepEqual(got, want), nil
		})
		if err != nil {
			t.Fatalf("aggregated rules %v, want %v: %v", got, want, err)
		}
	}

	labelled := clusterRole("a", map[string]string{"agg": "yes"}, rule("get", "pods"))
	if _, err := roles.Create(ctx, labelled, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRules(rule("get", "pods"))
	// The rules are applied under the controller's field manager, as
	// upstream does.
	agg, err := roles.Get(ctx, "agg", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var managers []string
	for _, m := range agg.ManagedFields {
		managers = append(managers, m.Manager+"/"+string(m.Operation))
	}
	if !slices.Contains(managers, FieldManager+"/Apply") {
		t.Errorf("managers %v, want %s applying", managers, FieldManager)
	}

	labelled.Rules = append(labelled.Rules, rule("list", "pods"))
	if _, err := roles.Update(ctx, labelled, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRules(rule("get", "pods"), rule("list", "pods"))

	if _, err := roles.Create(ctx, clusterRole("b", map[string]string{"agg": "yes"}, rule("list", "pods"), rule("watch", "pods")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRules(rule("get", "pods"), rule("list", "pods"), rule("watch", "pods"))

	if err := roles.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRules(rule("list", "pods"), rule("watch", "pods"))
	if err := roles.Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRules()
}
