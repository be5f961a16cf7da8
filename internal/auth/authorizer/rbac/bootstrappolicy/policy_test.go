package bootstrappolicy

import (
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// effectiveRules resolves a role's aggregation the way the aggregation
// controller does, to a fixed point.
func effectiveRules(t *testing.T, roles []rbacv1.ClusterRole, name string) []rbacv1.PolicyRule {
	t.Helper()
	byName := map[string]rbacv1.ClusterRole{}
	for _, r := range roles {
		byName[r.Name] = r
	}
	seen := map[string]bool{}
	var walk func(name string) []rbacv1.PolicyRule
	walk = func(name string) []rbacv1.PolicyRule {
		r, ok := byName[name]
		if !ok {
			t.Fatalf("no cluster role %q", name)
		}
		if seen[name] {
			return nil
		}
		seen[name] = true
		if r.AggregationRule == nil {
			return r.Rules
		}
		var out []rbacv1.PolicyRule
		for _, sel := range r.AggregationRule.ClusterRoleSelectors {
			s, err := metav1.LabelSelectorAsSelector(&sel)
			if err != nil {
				t.Fatal(err)
			}
			for _, other := range roles {
				if other.Name != name && s.Matches(labels.Set(other.Labels)) {
					out = append(out, walk(other.Name)...)
				}
			}
		}
		return out
	}
	return walk(name)
}

func has(list []string, v string) bool { return slices.Contains(list, "*") || slices.Contains(list, v) }

// allows is a plain reading of RBAC rule matching, for spot checks.
func allows(rs []rbacv1.PolicyRule, verb, group, resource string) bool {
	for _, r := range rs {
		if has(r.Verbs, verb) && has(r.APIGroups, group) && has(r.Resources, resource) && len(r.ResourceNames) == 0 {
			return true
		}
	}
	return false
}

func allowsURL(rs []rbacv1.PolicyRule, verb, path string) bool {
	for _, r := range rs {
		if !has(r.Verbs, verb) {
			continue
		}
		for _, u := range r.NonResourceURLs {
			if u == path || u == "*" || (strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimSuffix(u, "*"))) {
				return true
			}
		}
	}
	return false
}

func TestCounts(t *testing.T) {
	// Regression guard: a change here means the policy changed; compare
	// with upstream before updating.
	ns := NamespaceRoles()
	nsb := NamespaceRoleBindings()
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"cluster roles", len(ClusterRoles()), 68},
		{"cluster role bindings", len(ClusterRoleBindings()), 49},
		{"controller roles", len(controllerRoles()), 37},
		{"kube-system roles", len(ns["kube-system"]), 6},
		{"kube-public roles", len(ns["kube-public"]), 1},
		{"kube-system role bindings", len(nsb["kube-system"]), 6},
		{"kube-public role bindings", len(nsb["kube-public"]), 1},
		{"namespaces with roles", len(ns), 2},
		{"node rules", len(NodeRules()), 25},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.what, c.got, c.want)
		}
	}
}

func TestSpotChecks(t *testing.T) {
	roles := ClusterRoles()
	for _, c := range []struct {
		role, verb, group, resource string
		want                        bool
	}{
		{"view", "get", "", "pods", true},
		{"view", "list", "apps", "deployments", true},
		{"view", "get", "", "secrets", false},
		{"view", "create", "", "pods", false},
		{"view", "get", "rbac.authorization.k8s.io", "roles", false},
		{"edit", "get", "", "secrets", true},
		{"edit", "create", "apps", "deployments", true},
		{"edit", "get", "", "pods", true}, // through view
		{"edit", "create", "rbac.authorization.k8s.io", "roles", false},
		{"edit", "create", "rbac.authorization.k8s.io", "rolebindings", false},
		{"edit", "update", "", "resourcequotas", false},
		{"admin", "create", "rbac.authorization.k8s.io", "roles", true},
		{"admin", "create", "rbac.authorization.k8s.io", "rolebindings", true},
		{"admin", "create", "authorization.k8s.io", "localsubjectaccessreviews", true},
		{"admin", "delete", "", "secrets", true},
		{"cluster-admin", "escalate", "anything.example.com", "widgets", true},
		{"system:basic-user", "create", "authorization.k8s.io", "selfsubjectaccessreviews", true},
		{"system:basic-user", "create", "authentication.k8s.io", "selfsubjectreviews", true},
		{"system:node", "get", "", "secrets", true},
		{"system:node", "delete", "", "secrets", false},
		{"system:kube-scheduler", "create", "", "pods/binding", true},
		{"system:controller:namespace-controller", "deletecollection", "apps", "deployments", true},
		{"system:controller:clusterrole-aggregation-controller", "escalate", "rbac.authorization.k8s.io", "clusterroles", true},
	} {
		if got := allows(effectiveRules(t, roles, c.role), c.verb, c.group, c.resource); got != c.want {
			t.Errorf("%s %s %s/%s: got %v, want %v", c.role, c.verb, c.group, c.resource, got, c.want)
		}
	}
}

func TestNonResourceURLs(t *testing.T) {
	roles := ClusterRoles()
	for _, c := range []struct {
		role, path string
		want       bool
	}{
		{"system:public-info-viewer", "/healthz", true},
		{"system:public-info-viewer", "/livez", true},
		{"system:public-info-viewer", "/readyz", true},
		{"system:public-info-viewer", "/version", true},
		{"system:public-info-viewer", "/version/", true},
		{"system:public-info-viewer", "/api", false},
		{"system:public-info-viewer", "/metrics", false},
		{"system:discovery", "/api", true},
		{"system:discovery", "/api/v1", true},
		{"system:discovery", "/apis", true},
		{"system:discovery", "/apis/apps/v1", true},
		{"system:discovery", "/openapi/v3", true},
		{"system:discovery", "/openapi/v2", true},
		{"system:discovery", "/metrics", false},
		{"system:monitoring", "/metrics", true},
		{"system:monitoring", "/readyz/etcd", true},
		{"system:service-account-issuer-discovery", "/openid/v1/jwks", true},
		{"cluster-admin", "/anything", true},
	} {
		if got := allowsURL(effectiveRules(t, roles, c.role), "get", c.path); got != c.want {
			t.Errorf("%s get %s: got %v, want %v", c.role, c.path, got, c.want)
		}
	}
}

func checkMeta(t *testing.T, kind string, m metav1.ObjectMeta) {
	t.Helper()
	if m.Labels[BootstrappingLabel] != BootstrappingValue {
		t.Errorf("%s %s/%s: label %s=%q", kind, m.Namespace, m.Name, BootstrappingLabel, m.Labels[BootstrappingLabel])
	}
	if m.Annotations[AutoUpdate] != "true" {
		t.Errorf("%s %s/%s: annotation %s=%q", kind, m.Namespace, m.Name, AutoUpdate, m.Annotations[AutoUpdate])
	}
}

func checkRules(t *testing.T, owner string, rs []rbacv1.PolicyRule) {
	t.Helper()
	for i, r := range rs {
		bad := ""
		switch {
		case len(r.Verbs) == 0:
			bad = "no verbs"
		case len(r.NonResourceURLs) > 0 && (len(r.APIGroups)+len(r.Resources)+len(r.ResourceNames)) > 0:
			bad = "mixes URLs and resources"
		case len(r.NonResourceURLs) == 0 && (len(r.Resources) == 0 || len(r.APIGroups) == 0):
			bad = "resource rule without resources or groups"
		}
		for _, l := range [][]string{r.Verbs, r.APIGroups, r.Resources, r.ResourceNames, r.NonResourceURLs} {
			if !slices.IsSorted(l) {
				bad = "unsorted list"
			}
		}
		if bad != "" {
			t.Errorf("%s rule %d %+v: %s", owner, i, r, bad)
		}
	}
}

func TestMetadataAndNames(t *testing.T) {
	roles := map[string]bool{}
	for _, r := range ClusterRoles() {
		if roles[r.Name] {
			t.Errorf("duplicate cluster role %q", r.Name)
		}
		roles[r.Name] = true
		checkMeta(t, "ClusterRole", r.ObjectMeta)
		checkRules(t, r.Name, r.Rules)
		if r.AggregationRule == nil && len(r.Rules) == 0 {
			t.Errorf("cluster role %q has neither rules nor aggregation", r.Name)
		}
	}
	bindings := map[string]bool{}
	for _, b := range ClusterRoleBindings() {
		if bindings[b.Name] {
			t.Errorf("duplicate cluster role binding %q", b.Name)
		}
		bindings[b.Name] = true
		checkMeta(t, "ClusterRoleBinding", b.ObjectMeta)
		if b.RoleRef.Kind != "ClusterRole" || !roles[b.RoleRef.Name] {
			t.Errorf("binding %q refers to unknown %s %q", b.Name, b.RoleRef.Kind, b.RoleRef.Name)
		}
		checkSubjects(t, b.Name, b.Subjects)
	}
	nsRoles := NamespaceRoles()
	for ns, rs := range nsRoles {
		names := map[string]bool{}
		for _, r := range rs {
			if r.Namespace != ns || names[r.Name] {
				t.Errorf("role %s/%s in %s: wrong namespace or duplicate", r.Namespace, r.Name, ns)
			}
			names[r.Name] = true
			checkMeta(t, "Role", r.ObjectMeta)
			checkRules(t, ns+"/"+r.Name, r.Rules)
		}
	}
	for ns, bs := range NamespaceRoleBindings() {
		names := map[string]bool{}
		for _, b := range bs {
			if b.Namespace != ns || names[b.Name] {
				t.Errorf("role binding %s/%s in %s: wrong namespace or duplicate", b.Namespace, b.Name, ns)
			}
			names[b.Name] = true
			checkMeta(t, "RoleBinding", b.ObjectMeta)
			found := false
			for _, r := range nsRoles[ns] {
				found = found || r.Name == b.RoleRef.Name
			}
			if b.RoleRef.Kind != "Role" || !found {
				t.Errorf("role binding %s/%s refers to unknown %s %q", ns, b.Name, b.RoleRef.Kind, b.RoleRef.Name)
			}
			checkSubjects(t, ns+"/"+b.Name, b.Subjects)
		}
	}
}

func checkSubjects(t *testing.T, owner string, subjects []rbacv1.Subject) {
	t.Helper()
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			if s.Namespace == "" || s.APIGroup != "" {
				t.Errorf("%s: bad service account subject %+v", owner, s)
			}
		case rbacv1.UserKind, rbacv1.GroupKind:
			if s.APIGroup != rbacv1.GroupName || s.Namespace != "" {
				t.Errorf("%s: bad subject %+v", owner, s)
			}
		default:
			t.Errorf("%s: unknown subject kind %q", owner, s.Kind)
		}
	}
}

func TestControllerBindings(t *testing.T) {
	for _, b := range ClusterRoleBindings() {
		name, ok := strings.CutPrefix(b.Name, ControllerRolePrefix)
		if !ok {
			continue
		}
		want := []rbacv1.Subject{serviceAccount("kube-system", name)}
		if !slices.Equal(b.Subjects, want) {
			t.Errorf("%s subjects: got %+v, want %+v", b.Name, b.Subjects, want)
		}
	}
}

// Callers may change what they get without changing the next caller's data.
func TestReturnsFreshCopies(t *testing.T) {
	a := ClusterRoles()
	a[0].Labels["x"] = "y"
	a[0].Rules[0].Verbs[0] = "tampered"
	NodeRules()[0].Verbs[0] = "tampered"
	b := ClusterRoles()
	if b[0].Labels["x"] != "" || b[0].Rules[0].Verbs[0] == "tampered" || NodeRules()[0].Verbs[0] == "tampered" {
		t.Fatal("policy data is shared between calls")
	}
}

func BenchmarkClusterRoles(b *testing.B) {
	for b.Loop() {
		_ = ClusterRoles()
	}
}
