package rbacbootstrap

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac/bootstrappolicy"
)

func writes(cs *fake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		switch a.GetVerb() {
		case "create", "update", "delete", "patch":
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	return out
}

func TestReconcileEmpty(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset()
	if err := Reconcile(ctx, cs); err != nil {
		t.Fatal(err)
	}
	crs, _ := cs.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	crbs, _ := cs.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	if got, want := len(crs.Items), len(bootstrappolicy.ClusterRoles()); got != want {
		t.Errorf("cluster roles: got %d, want %d", got, want)
	}
	if got, want := len(crbs.Items), len(bootstrappolicy.ClusterRoleBindings()); got != want {
		t.Errorf("cluster role bindings: got %d, want %d", got, want)
	}
	for ns, roles := range bootstrappolicy.NamespaceRoles() {
		if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
			t.Errorf("namespace %s: %v", ns, err)
		}
		got, _ := cs.RbacV1().Roles(ns).List(ctx, metav1.ListOptions{})
		if len(got.Items) != len(roles) {
			t.Errorf("roles in %s: got %d, want %d", ns, len(got.Items), len(roles))
		}
	}
	for ns, bindings := range bootstrappolicy.NamespaceRoleBindings() {
		got, _ := cs.RbacV1().RoleBindings(ns).List(ctx, metav1.ListOptions{})
		if len(got.Items) != len(bindings) {
			t.Errorf("role bindings in %s: got %d, want %d", ns, len(got.Items), len(bindings))
		}
	}

	// A second run finds everything in place.
	cs.ClearActions()
	if err := Reconcile(ctx, cs); err != nil {
		t.Fatal(err)
	}
	if w := writes(cs); len(w) != 0 {
		t.Errorf("second run wrote: %v", w)
	}
}

func clusterRole(name, autoupdate string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	r := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	if autoupdate != "" {
		r.Annotations = map[string]string{rbacv1.AutoUpdateAnnotationKey: autoupdate}
	}
	return r
}

var customRule = rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}

func TestReconcileExistingRoles(t *testing.T) {
	ssar := rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews"}}
	adminRules := []rbacv1.PolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}}
	for _, c := range []struct {
		name     string
		existing *rbacv1.ClusterRole
		check    func(t *testing.T, got, existing *rbacv1.ClusterRole)
	}{{
		name:     "autoupdate adds missing rules and keeps extra ones",
		existing: clusterRole("system:basic-user", "true", ssar, customRule),
		check: func(t *testing.T, got, _ *rbacv1.ClusterRole) {
			if len(missingRules(got.Rules, wantRole(t, got.Name).Rules)) != 0 {
				t.Errorf("rules still missing: %+v", got.Rules)
			}
			if len(missingRules(got.Rules, []rbacv1.PolicyRule{customRule})) != 0 {
				t.Errorf("custom rule removed: %+v", got.Rules)
			}
			if got.Labels[bootstrappolicy.BootstrappingLabel] != bootstrappolicy.BootstrappingValue {
				t.Errorf("label not added: %v", got.Labels)
			}
		},
	}, {
		name:     "no annotation counts as autoupdate",
		existing: clusterRole("system:basic-user", "", ssar),
		check: func(t *testing.T, got, _ *rbacv1.ClusterRole) {
			if len(missingRules(got.Rules, wantRole(t, got.Name).Rules)) != 0 {
				t.Errorf("rules still missing: %+v", got.Rules)
			}
			if got.Annotations[rbacv1.AutoUpdateAnnotationKey] != "true" {
				t.Errorf("annotation not added: %v", got.Annotations)
			}
		},
	}, {
		name:     "autoupdate false is left alone",
		existing: clusterRole("system:basic-user", "false", customRule),
		check: func(t *testing.T, got, existing *rbacv1.ClusterRole) {
			if d := cmp.Diff(existing, got); d != "" {
				t.Errorf("protected role changed (-want +got):\n%s", d)
			}
		},
	}, {
		name: "aggregated role keeps its aggregated rules",
		existing: func() *rbacv1.ClusterRole {
			r := clusterRole("admin", "true", adminRules...)
			r.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
				{MatchLabels: map[string]string{"example.com/aggregate": "true"}},
			}}
			return r
		}(),
		check: func(t *testing.T, got, _ *rbacv1.ClusterRole) {
			if d := cmp.Diff(adminRules, got.Rules); d != "" {
				t.Errorf("aggregated rules changed (-want +got):\n%s", d)
			}
			sels := got.AggregationRule.ClusterRoleSelectors
			if len(sels) != 2 || sels[0].MatchLabels["example.com/aggregate"] != "true" ||
				sels[1].MatchLabels["rbac.authorization.k8s.io/aggregate-to-admin"] != "true" {
				t.Errorf("selectors not unioned: %+v", sels)
			}
		},
	}, {
		name: "unexpected aggregation is removed",
		existing: func() *rbacv1.ClusterRole {
			r := clusterRole("system:basic-user", "true", ssar)
			r.AggregationRule = &rbacv1.AggregationRule{}
			return r
		}(),
		check: func(t *testing.T, got, _ *rbacv1.ClusterRole) {
			if got.AggregationRule != nil {
				t.Errorf("aggregation rule kept: %+v", got.AggregationRule)
			}
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			cs := fake.NewClientset(c.existing.DeepCopy())
			if err := Reconcile(ctx, cs); err != nil {
				t.Fatal(err)
			}
			got, err := cs.RbacV1().ClusterRoles().Get(ctx, c.existing.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, got, c.existing)
		})
	}
}

func wantRole(t *testing.T, name string) rbacv1.ClusterRole {
	t.Helper()
	for _, r := range bootstrappolicy.ClusterRoles() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no bootstrap role %q", name)
	return rbacv1.ClusterRole{}
}

func TestReconcileBindings(t *testing.T) {
	ctx := context.Background()
	extra := rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}
	cs := fake.NewClientset(
		// Missing its subject, with an admin's extra one.
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{extra},
		},
		// Pointing at the wrong role: replaced.
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "system:basic-user"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		},
		// Protected: untouched.
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "system:discovery", Annotations: map[string]string{rbacv1.AutoUpdateAnnotationKey: "false"}},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:discovery"},
		},
	)
	if err := Reconcile(ctx, cs); err != nil {
		t.Fatal(err)
	}
	get := func(name string) *rbacv1.ClusterRoleBinding {
		b, err := cs.RbacV1().ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	masters := rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:masters"}
	if d := cmp.Diff([]rbacv1.Subject{extra, masters}, get("cluster-admin").Subjects); d != "" {
		t.Errorf("cluster-admin subjects (-want +got):\n%s", d)
	}
	if b := get("system:basic-user"); b.RoleRef.Name != "system:basic-user" || len(b.Subjects) != 1 {
		t.Errorf("system:basic-user not replaced: %+v", b)
	}
	if b := get("system:discovery"); len(b.Subjects) != 0 {
		t.Errorf("protected binding changed: %+v", b.Subjects)
	}
}

func TestReconcileRetriesConflicts(t *testing.T) {
	ctx := context.Background()
	cs := fake.NewClientset(clusterRole("system:basic-user", "true"))
	conflicts := 0
	cs.PrependReactor("update", "clusterroles", func(k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts < 2 {
			conflicts++
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: rbacv1.GroupName, Resource: "clusterroles"}, "system:basic-user", nil)
		}
		return false, nil, nil
	})
	if err := Reconcile(ctx, cs); err != nil {
		t.Fatal(err)
	}
	got, _ := cs.RbacV1().ClusterRoles().Get(ctx, "system:basic-user", metav1.GetOptions{})
	if conflicts != 2 || len(got.Rules) == 0 {
		t.Errorf("conflicts %d, rules %+v", conflicts, got.Rules)
	}
}

func TestReconcileReportsErrors(t *testing.T) {
	cs := fake.NewClientset()
	cs.PrependReactor("create", "clusterrolebindings", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "clusterrolebindings"}, "x", nil)
	})
	err := Reconcile(context.Background(), cs)
	if err == nil || !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `unable to reconcile clusterrolebinding "cluster-admin"`) {
		t.Fatalf("got %v", err)
	}
}

func TestCovers(t *testing.T) {
	r := func(verbs, groups, resources, names, urls []string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names, NonResourceURLs: urls}
	}
	s := func(v ...string) []string { return v }
	for _, c := range []struct {
		name       string
		owner, sub rbacv1.PolicyRule
		want       bool
	}{
		{"same", r(s("get"), s(""), s("pods"), nil, nil), r(s("get"), s(""), s("pods"), nil, nil), true},
		{"other verb", r(s("get"), s(""), s("pods"), nil, nil), r(s("list"), s(""), s("pods"), nil, nil), false},
		{"star verb", r(s("*"), s(""), s("pods"), nil, nil), r(s("list"), s(""), s("pods"), nil, nil), true},
		{"star group", r(s("get"), s("*"), s("pods"), nil, nil), r(s("get"), s("apps"), s("pods"), nil, nil), true},
		{"star subresource", r(s("get"), s(""), s("*/scale"), nil, nil), r(s("get"), s(""), s("rc/scale"), nil, nil), true},
		{"subresource not parent", r(s("get"), s(""), s("pods"), nil, nil), r(s("get"), s(""), s("pods/log"), nil, nil), false},
		{"names narrow", r(s("get"), s(""), s("cm"), s("a"), nil), r(s("get"), s(""), s("cm"), nil, nil), false},
		{"names covered", r(s("get"), s(""), s("cm"), nil, nil), r(s("get"), s(""), s("cm"), s("a"), nil), true},
		{"url prefix", r(s("get"), nil, nil, nil, s("/apis/*")), r(s("get"), nil, nil, nil, s("/apis/apps")), true},
		{"url exact", r(s("get"), nil, nil, nil, s("/api")), r(s("get"), nil, nil, nil, s("/api/v1")), false},
	} {
		if got := covers(c.owner, c.sub); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
