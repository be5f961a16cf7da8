package rbac

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// policy is the world the Authorize and RulesFor tables run in.
func policy() []runtime.Object {
	return []runtime.Object{
		clusterRole("pod-reader", rule(list("get", "list"), list(""), list("pods"))),
		clusterRole("healthz", rbacv1.PolicyRule{Verbs: list("get"), NonResourceURLs: list("/healthz", "/livez/*")}),
		clusterRole("node-admin", rule(list("*"), list(""), list("nodes"))),
		role("team", "secret-reader", rule(list("get"), list(""), list("secrets"))),
		role("other", "secret-reader", rule(list("get"), list(""), list("secrets"))),
		role("team", "deployer", rule(list("update"), list("apps"), list("deployments/scale"))),

		crb("alice-nodes", "node-admin", userSubject("alice")),
		crb("viewers", "pod-reader", groupSubject("viewers")),
		crb("probes", "healthz", groupSubject(user.AllUnauthenticated), groupSubject(user.AllAuthenticated)),
		crb("robot-nodes", "node-admin", saSubject("kube-system", "robot")),
		// A cluster role binding's service account needs a namespace.
		crb("nobody", "node-admin", saSubject("", "robot")),
		crb("dangling", "missing-role", userSubject("dora")),

		rb("team", "bob-secrets", "Role", "secret-reader", userSubject("bob")),
		rb("team", "bob-pods", "ClusterRole", "pod-reader", userSubject("bob")),
		// A role binding's service account without a namespace is in the
		// binding's namespace.
		rb("team", "local-sa", "Role", "deployer", saSubject("", "ci")),
		rb("team", "dangling", "Role", "gone", userSubject("dora")),
	}
}

func TestAuthorize(t *testing.T) {
	u := func(name string, groups ...string) user.Info {
		return &user.DefaultInfo{Name: name, Groups: groups}
	}
	res := func(who user.Info, verb, ns, group, resource, sub, name string) authorizer.Attributes {
		return authorizer.Attributes{User: who, ResourceRequest: true, Verb: verb, Namespace: ns, APIGroup: group, APIVersion: "v1", Resource: resource, Subresource: sub, Name: name}
	}
	nonRes := func(who user.Info, verb, path string) authorizer.Attributes {
		return authorizer.Attributes{User: who, Verb: verb, Path: path}
	}
	allow := authorizer.DecisionAllow
	none := authorizer.DecisionNoOpinion
	tests := []struct {
		name   string
		attrs  authorizer.Attributes
		want   authorizer.Decision
		reason string
	}{
		{"user cluster-wide", res(u("alice"), "delete", "", "", "nodes", "", "n1"), allow,
			`RBAC: allowed by ClusterRoleBinding "alice-nodes" of ClusterRole "node-admin" to User "alice"`},
		{"cluster role binding applies in every namespace", res(u("carol", "viewers"), "list", "anywhere", "", "pods", "", ""), allow,
			`RBAC: allowed by ClusterRoleBinding "viewers" of ClusterRole "pod-reader" to Group "viewers"`},
		{"group without the verb", res(u("carol", "viewers"), "delete", "team", "", "pods", "", "p"), none, ""},
		{"user names are case sensitive", res(u("Alice"), "delete", "", "", "nodes", "", "n1"), none, ""},
		{"service account", res(u("system:serviceaccount:kube-system:robot"), "get", "", "", "nodes", "", ""), allow,
			`RBAC: allowed by ClusterRoleBinding "robot-nodes" of ClusterRole "node-admin" to ServiceAccount "robot/kube-system"`},
		{"service account of another namespace", res(u("system:serviceaccount:default:robot"), "get", "", "", "nodes", "", ""), none, ""},
		{"user named like a service account prefix", res(u("system:serviceaccount:kube-system:robot2"), "get", "", "", "nodes", "", ""), none, ""},
		{"role binding in its namespace", res(u("bob"), "get", "team", "", "secrets", "", "s"), allow,
			`RBAC: allowed by RoleBinding "bob-secrets/team" of Role "secret-reader" to User "bob"`},
		{"role binding of a cluster role", res(u("bob"), "list", "team", "", "pods", "", ""), allow,
			`RBAC: allowed by RoleBinding "bob-pods/team" of ClusterRole "pod-reader" to User "bob"`},
		{"role binding not in another namespace", res(u("bob"), "get", "other", "", "secrets", "", "s"), none, ""},
		{"role binding not cluster-wide", res(u("bob"), "list", "", "", "pods", "", ""), none, ""},
		{"namespaced service account defaults to binding namespace", res(u("system:serviceaccount:team:ci"), "update", "team", "apps", "deployments", "scale", "d"), allow,
			`RBAC: allowed by RoleBinding "local-sa/team" of Role "deployer" to ServiceAccount "ci/team"`},
		{"subresource rule does not grant the resource", res(u("system:serviceaccount:team:ci"), "update", "team", "apps", "deployments", "", "d"), none, ""},
		{"non-resource exact", nonRes(u(user.Anonymous, user.AllUnauthenticated), "get", "/healthz"), allow,
			`RBAC: allowed by ClusterRoleBinding "probes" of ClusterRole "healthz" to Group "system:unauthenticated"`},
		{"non-resource prefix", nonRes(u("x", user.AllAuthenticated), "get", "/livez/etcd"), allow,
			`RBAC: allowed by ClusterRoleBinding "probes" of ClusterRole "healthz" to Group "system:authenticated"`},
		{"non-resource other path", nonRes(u("x", user.AllAuthenticated), "get", "/metrics"), none, ""},
		{"non-resource other verb", nonRes(u("x", user.AllAuthenticated), "post", "/healthz"), none, ""},
		{"missing roles are reported", res(u("dora"), "get", "team", "", "pods", "", ""), none,
			`RBAC: [clusterrole.rbac.authorization.k8s.io "missing-role" not found, role.rbac.authorization.k8s.io "gone" not found]`},
		{"no user", authorizer.Attributes{Verb: "get", Path: "/healthz"}, none, ""},
	}
	for name, a := range variants(t, policy()...) {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				got, reason, err := a.Authorize(context.Background(), tt.attrs)
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.want || reason != tt.reason {
					t.Errorf("Authorize = %v, %q; want %v, %q", got, reason, tt.want, tt.reason)
				}
			})
		}
	}
}

func TestRulesFor(t *testing.T) {
	tests := []struct {
		name        string
		user        user.Info
		namespace   string
		resource    []authorizer.ResourceRule
		nonResource []authorizer.NonResourceRule
		err         string
	}{
		{
			name: "cluster and namespace rules", user: &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}, namespace: "team",
			resource: []authorizer.ResourceRule{
				{Verbs: list("get"), APIGroups: list(""), Resources: list("secrets")},
				{Verbs: list("get", "list"), APIGroups: list(""), Resources: list("pods")},
			},
			nonResource: []authorizer.NonResourceRule{{Verbs: list("get"), NonResourceURLs: list("/healthz", "/livez/*")}},
		},
		{
			name: "cluster rules only", user: &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}},
			nonResource: []authorizer.NonResourceRule{{Verbs: list("get"), NonResourceURLs: list("/healthz", "/livez/*")}},
		},
		{
			name: "errors beside the rules found", user: &user.DefaultInfo{Name: "dora"}, namespace: "team",
			err: `[clusterrole.rbac.authorization.k8s.io "missing-role" not found, role.rbac.authorization.k8s.io "gone" not found]`,
		},
	}
	for name, a := range variants(t, policy()...) {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				res, nonRes, incomplete, err := a.RulesFor(context.Background(), tt.user, tt.namespace)
				if incomplete {
					t.Error("incomplete = true, want false as upstream")
				}
				if got := errString(err); got != tt.err {
					t.Errorf("err = %q, want %q", got, tt.err)
				}
				// Bindings of one kind come in name order on the index path
				// and store order on the lister path; compare as sets.
				sortRules(res)
				sortRules(tt.resource)
				if diff := cmp.Diff(tt.resource, res); diff != "" {
					t.Errorf("resource rules (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.nonResource, nonRes); diff != "" {
					t.Errorf("non-resource rules (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestGetRoleReferenceRules(t *testing.T) {
	tests := []struct {
		name  string
		ref   rbacv1.RoleRef
		ns    string
		rules int
		err   string
	}{
		{"role", rbacv1.RoleRef{Kind: "Role", Name: "secret-reader"}, "team", 1, ""},
		{"role of another namespace", rbacv1.RoleRef{Kind: "Role", Name: "deployer"}, "other", 0, `role.rbac.authorization.k8s.io "deployer" not found`},
		{"cluster role", rbacv1.RoleRef{Kind: "ClusterRole", Name: "healthz"}, "team", 1, ""},
		{"unknown kind", rbacv1.RoleRef{Kind: "Group", Name: "x"}, "", 0, `unsupported role reference kind: "Group"`},
	}
	a := variants(t, policy()...)["index"]
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, err := a.GetRoleReferenceRules(context.Background(), tt.ref, tt.ns)
			if len(rules) != tt.rules || errString(err) != tt.err {
				t.Errorf("got %d rules, err %q; want %d, %q", len(rules), errString(err), tt.rules, tt.err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func sortRules(rules []authorizer.ResourceRule) {
	slices.SortFunc(rules, func(a, b authorizer.ResourceRule) int { return strings.Compare(a.Resources[0], b.Resources[0]) })
}
