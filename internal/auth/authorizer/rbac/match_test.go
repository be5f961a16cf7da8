package rbac

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

func TestRuleAllows(t *testing.T) {
	res := func(verb, group, resource, sub, name string) authorizer.Attributes {
		return authorizer.Attributes{ResourceRequest: true, Verb: verb, APIGroup: group, Resource: resource, Subresource: sub, Name: name}
	}
	url := func(verb, path string) authorizer.Attributes {
		return authorizer.Attributes{Verb: verb, Path: path}
	}
	rule := func(verbs, groups, resources []string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
	}
	s := func(v ...string) []string { return v }
	tests := []struct {
		name  string
		rule  rbacv1.PolicyRule
		attrs authorizer.Attributes
		want  bool
	}{
		{"exact", rule(s("get"), s(""), s("pods")), res("get", "", "pods", "", "p"), true},
		{"other verb", rule(s("get"), s(""), s("pods")), res("list", "", "pods", "", ""), false},
		{"verb star", rule(s("*"), s(""), s("pods")), res("deletecollection", "", "pods", "", ""), true},
		{"other group", rule(s("get"), s("apps"), s("pods")), res("get", "", "pods", "", ""), false},
		{"group star", rule(s("get"), s("*"), s("deployments")), res("get", "apps", "deployments", "", ""), true},
		{"no groups", rule(s("get"), nil, s("pods")), res("get", "", "pods", "", ""), false},
		{"resource star", rule(s("get"), s(""), s("*")), res("get", "", "secrets", "", ""), true},
		{"resource star covers subresources", rule(s("get"), s(""), s("*")), res("get", "", "pods", "log", ""), true},
		{"resource does not cover its subresource", rule(s("get"), s(""), s("pods")), res("get", "", "pods", "log", ""), false},
		{"resource/subresource", rule(s("get"), s(""), s("pods/log")), res("get", "", "pods", "log", ""), true},
		{"resource/subresource not the resource", rule(s("get"), s(""), s("pods/log")), res("get", "", "pods", "", ""), false},
		{"resource/subresource other subresource", rule(s("get"), s(""), s("pods/log")), res("get", "", "pods", "exec", ""), false},
		{"*/subresource", rule(s("get"), s(""), s("*/scale")), res("get", "apps", "deployments", "scale", ""), false},
		{"*/subresource any group", rule(s("get"), s("*"), s("*/scale")), res("get", "apps", "deployments", "scale", ""), true},
		{"*/subresource not the resource", rule(s("get"), s("*"), s("*/scale")), res("get", "apps", "deployments", "", ""), false},
		{"*/subresource other subresource", rule(s("get"), s("*"), s("*/scale")), res("get", "apps", "deployments", "status", ""), false},
		{"*/subresource is not a suffix match", rule(s("get"), s("*"), s("*/tatus")), res("get", "", "pods", "status", ""), false},
		// Upstream gives "resource/*" no meaning: only a subresource
		// literally named "*" matches it.
		{"resource/* is literal", rule(s("get"), s(""), s("pods/*")), res("get", "", "pods", "log", ""), false},
		{"resource/* literal star", rule(s("get"), s(""), s("pods/*")), res("get", "", "pods", "*", ""), true},
		{"resource name", rbacv1.PolicyRule{Verbs: s("get"), APIGroups: s(""), Resources: s("pods"), ResourceNames: s("a", "b")}, res("get", "", "pods", "", "b"), true},
		{"other resource name", rbacv1.PolicyRule{Verbs: s("get"), APIGroups: s(""), Resources: s("pods"), ResourceNames: s("a")}, res("get", "", "pods", "", "c"), false},
		{"resource names exclude unnamed", rbacv1.PolicyRule{Verbs: s("list"), APIGroups: s(""), Resources: s("pods"), ResourceNames: s("a")}, res("list", "", "pods", "", ""), false},
		{"url exact", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("/healthz")}, url("get", "/healthz"), true},
		{"url exact is not a prefix", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("/healthz")}, url("get", "/healthz/ping"), false},
		{"url prefix", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("/healthz/*")}, url("get", "/healthz/etcd"), true},
		{"url prefix needs the prefix", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("/healthz/*")}, url("get", "/healthz"), false},
		{"url prefix without slash", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("/api*")}, url("get", "/apis/apps"), true},
		{"url star", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("*")}, url("get", "/anything"), true},
		{"url other verb", rbacv1.PolicyRule{Verbs: s("get"), NonResourceURLs: s("*")}, url("post", "/anything"), false},
		{"resource rule does not grant urls", rule(s("*"), s("*"), s("*")), url("get", "/healthz"), false},
		{"url rule does not grant resources", rbacv1.PolicyRule{Verbs: s("*"), NonResourceURLs: s("*")}, res("get", "", "pods", "", ""), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ruleAllows(&tt.attrs, &tt.rule); got != tt.want {
				t.Errorf("ruleAllows(%+v, %+v) = %v, want %v", tt.attrs, tt.rule, got, tt.want)
			}
		})
	}
}
