package audit

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"

	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

func TestCheckerRules(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"devs", user.AllAuthenticated}}
	bob := &user.DefaultInfo{Name: "bob", Groups: []string{"ops"}}
	res := func(u user.Info, verb, ns, group, resource, sub, name string) authorizer.Attributes {
		return authorizer.Attributes{User: u, Verb: verb, Namespace: ns, APIGroup: group, Resource: resource,
			Subresource: sub, Name: name, ResourceRequest: true}
	}
	path := func(u user.Info, p string) authorizer.Attributes {
		return authorizer.Attributes{User: u, Verb: "get", Path: p}
	}
	tests := []struct {
		name  string
		rule  auditv1.PolicyRule
		attrs authorizer.Attributes
		match bool
	}{
		{"empty rule matches all", auditv1.PolicyRule{}, path(nil, "/x"), true},
		{"user", auditv1.PolicyRule{Users: []string{"alice"}}, path(alice, "/x"), true},
		{"other user", auditv1.PolicyRule{Users: []string{"alice"}}, path(bob, "/x"), false},
		{"no user", auditv1.PolicyRule{Users: []string{"alice"}}, path(nil, "/x"), false},
		{"group", auditv1.PolicyRule{UserGroups: []string{"ops", "devs"}}, path(alice, "/x"), true},
		{"other group", auditv1.PolicyRule{UserGroups: []string{"devs"}}, path(bob, "/x"), false},
		{"group without user", auditv1.PolicyRule{UserGroups: []string{"devs"}}, path(nil, "/x"), false},
		{"verb", auditv1.PolicyRule{Verbs: []string{"list", "get"}}, res(alice, "get", "ns", "", "pods", "", "p"), true},
		{"other verb", auditv1.PolicyRule{Verbs: []string{"list"}}, res(alice, "get", "ns", "", "pods", "", "p"), false},
		{"namespace", auditv1.PolicyRule{Namespaces: []string{"ns"}}, res(alice, "get", "ns", "", "pods", "", "p"), true},
		{"other namespace", auditv1.PolicyRule{Namespaces: []string{"ns"}}, res(alice, "get", "x", "", "pods", "", "p"), false},
		{"cluster scope as empty namespace", auditv1.PolicyRule{Namespaces: []string{""}}, res(alice, "get", "", "", "nodes", "", "n"), true},
		{"namespaces never match a path", auditv1.PolicyRule{Namespaces: []string{""}}, path(alice, "/healthz"), false},
		{"core resource", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Resources: []string{"pods"}}}},
			res(alice, "get", "ns", "", "pods", "", "p"), true},
		{"group differs", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Group: "apps", Resources: []string{"pods"}}}},
			res(alice, "get", "ns", "", "pods", "", "p"), false},
		{"any group", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Group: "*", Resources: []string{"deployments"}}}},
			res(alice, "get", "ns", "apps", "deployments", "", "d"), true},
		{"whole group", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Group: "apps"}}},
			res(alice, "get", "ns", "apps", "deployments", "scale", "d"), true},
		{"resource does not match subresource", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Resources: []string{"pods"}}}},
			res(alice, "get", "ns", "", "pods", "log", "p"), false},
		{"res/sub", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Resources: []string{"pods/log"}}}},
			res(alice, "get", "ns", "", "pods", "log", "p"), true},
		{"*", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Resources: []string{"*"}}}},
			res(alice, "get", "ns", "", "pods", "log", "p"), true},
		{"*/sub", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Resources: []string{"*/status"}}}},
			res(alice, "update", "ns", "", "pods", "status", "p"), true},
		{"*/sub needs a subresource", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Resources: []string{"*/status"}}}},
			res(alice, "update", "ns", "", "pods", "", "p"), false},
		{"res/*", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Resources: []string{"pods/*"}}}},
			res(alice, "get", "ns", "", "pods", "exec", "p"), true},
		{"res/* other resource", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Resources: []string{"pods/*"}}}},
			res(alice, "get", "ns", "", "secrets", "x", "p"), false},
		{"resourceNames", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Resources: []string{"configmaps"}, ResourceNames: []string{"a", "b"}}}},
			res(alice, "get", "ns", "", "configmaps", "", "b"), true},
		{"other name", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}}},
			res(alice, "get", "ns", "", "configmaps", "", "b"), false},
		{"resources never match a path", auditv1.PolicyRule{Resources: []auditv1.GroupResources{{Group: "*"}}}, path(alice, "/api"), false},
		{"url exact", auditv1.PolicyRule{NonResourceURLs: []string{"/version"}}, path(alice, "/version"), true},
		{"url exact only", auditv1.PolicyRule{NonResourceURLs: []string{"/version"}}, path(alice, "/version/x"), false},
		{"url prefix", auditv1.PolicyRule{NonResourceURLs: []string{"/healthz*"}}, path(alice, "/healthz/etcd"), true},
		{"url star", auditv1.PolicyRule{NonResourceURLs: []string{"*"}}, path(alice, "/metrics"), true},
		{"urls never match a resource", auditv1.PolicyRule{NonResourceURLs: []string{"*"}}, res(alice, "get", "", "", "nodes", "", ""), false},
		{"all fields", auditv1.PolicyRule{Users: []string{"alice"}, UserGroups: []string{"devs"}, Verbs: []string{"get"},
			Namespaces: []string{"ns"}, Resources: []auditv1.GroupResources{{Resources: []string{"pods"}}}},
			res(alice, "get", "ns", "", "pods", "", "p"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rule.Level = auditv1.LevelRequest
			c := NewChecker(&auditv1.Policy{Rules: []auditv1.PolicyRule{tt.rule}})
			got := c.LevelAndStages(tt.attrs).Level
			want := auditv1.LevelNone
			if tt.match {
				want = auditv1.LevelRequest
			}
			if got != want {
				t.Errorf("level = %s, want %s", got, want)
			}
		})
	}
}

func TestCheckerOrderStagesAndManagedFields(t *testing.T) {
	yes, no := true, false
	policy := &auditv1.Policy{
		OmitStages:        []auditv1.Stage{auditv1.StageRequestReceived},
		OmitManagedFields: true,
		Rules: []auditv1.PolicyRule{
			{Level: auditv1.LevelNone, Users: []string{"quiet"}},
			{Level: auditv1.LevelRequestResponse, Verbs: []string{"create"}, OmitManagedFields: &no,
				OmitStages: []auditv1.Stage{auditv1.StagePanic, auditv1.StageRequestReceived}},
			{Level: auditv1.LevelRequest, Verbs: []string{"update"}, OmitManagedFields: &yes},
			{Level: auditv1.LevelMetadata},
		},
	}
	orig := slices.Clone(policy.Rules[1].OmitStages)
	c := NewChecker(policy)
	if diff := cmp.Diff(orig, policy.Rules[1].OmitStages); diff != "" {
		t.Errorf("NewChecker changed the policy:\n%s", diff)
	}
	quiet := &user.DefaultInfo{Name: "quiet"}
	loud := &user.DefaultInfo{Name: "loud"}
	tests := []struct {
		name  string
		attrs authorizer.Attributes
		want  RequestAuditConfig
	}{
		{"first rule wins", authorizer.Attributes{User: quiet, Verb: "create"},
			RequestAuditConfig{Level: auditv1.LevelNone, OmitStages: []Stage{auditv1.StageRequestReceived}, OmitManagedFields: true}},
		{"stages merged, rule turns managed fields on", authorizer.Attributes{User: loud, Verb: "create"},
			RequestAuditConfig{Level: auditv1.LevelRequestResponse, OmitStages: []Stage{auditv1.StagePanic, auditv1.StageRequestReceived}, OmitManagedFields: false}},
		{"rule keeps managed fields off", authorizer.Attributes{User: loud, Verb: "update"},
			RequestAuditConfig{Level: auditv1.LevelRequest, OmitStages: []Stage{auditv1.StageRequestReceived}, OmitManagedFields: true}},
		{"policy default", authorizer.Attributes{User: loud, Verb: "get"},
			RequestAuditConfig{Level: auditv1.LevelMetadata, OmitStages: []Stage{auditv1.StageRequestReceived}, OmitManagedFields: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, c.LevelAndStages(tt.attrs)); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}

	empty := NewChecker(&auditv1.Policy{OmitStages: []auditv1.Stage{auditv1.StagePanic}})
	got := empty.LevelAndStages(authorizer.Attributes{Verb: "get"})
	want := RequestAuditConfig{Level: auditv1.LevelNone, OmitStages: []Stage{auditv1.StagePanic}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("no rule matched (-want +got):\n%s", diff)
	}
}

func BenchmarkChecker(b *testing.B) {
	rules := make([]auditv1.PolicyRule, 0, 21)
	for range 20 {
		rules = append(rules, auditv1.PolicyRule{Level: auditv1.LevelNone, Users: []string{"system:kube-proxy"},
			Resources: []auditv1.GroupResources{{Group: "apps", Resources: []string{"deployments/status"}}}})
	}
	rules = append(rules, auditv1.PolicyRule{Level: auditv1.LevelMetadata})
	c := NewChecker(&auditv1.Policy{Rules: rules})
	attrs := authorizer.Attributes{User: &user.DefaultInfo{Name: "alice"}, Verb: "get", Namespace: "ns",
		Resource: "pods", Name: "p", ResourceRequest: true}
	for b.Loop() {
		c.LevelAndStages(attrs)
	}
}
