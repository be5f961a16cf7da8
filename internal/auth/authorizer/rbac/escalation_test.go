package rbac

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kapi-dev/kapi/internal/auth/user"
)

func TestCovers(t *testing.T) {
	named := func(verbs, groups, resources, names []string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources, ResourceNames: names}
	}
	urls := func(verbs, urls []string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, NonResourceURLs: urls}
	}
	tests := []struct {
		name    string
		owner   []rbacv1.PolicyRule
		servant []rbacv1.PolicyRule
		missing []rbacv1.PolicyRule
	}{
		{"equal", []rbacv1.PolicyRule{rule(list("get"), list(""), list("pods"))}, []rbacv1.PolicyRule{rule(list("get"), list(""), list("pods"))}, nil},
		{"nothing to cover", nil, nil, nil},
		{"split across owner rules",
			[]rbacv1.PolicyRule{rule(list("get"), list(""), list("pods")), rule(list("list"), list(""), list("pods"))},
			[]rbacv1.PolicyRule{rule(list("get", "list"), list(""), list("pods"))}, nil},
		{"missing verbs",
			[]rbacv1.PolicyRule{rule(list("get"), list(""), list("pods"))},
			[]rbacv1.PolicyRule{rule(list("get", "list", "watch"), list(""), list("pods"))},
			[]rbacv1.PolicyRule{rule(list("list"), list(""), list("pods")), rule(list("watch"), list(""), list("pods"))}},
		{"star verb group resource covers all",
			[]rbacv1.PolicyRule{rule(list("*"), list("*"), list("*"))},
			[]rbacv1.PolicyRule{rule(list("*"), list("*"), list("*")), rule(list("get"), list("apps"), list("deployments/scale"))}, nil},
		{"star servant needs star owner",
			[]rbacv1.PolicyRule{rule(list("get", "list"), list(""), list("pods"))},
			[]rbacv1.PolicyRule{rule(list("*"), list(""), list("pods"))},
			[]rbacv1.PolicyRule{rule(list("*"), list(""), list("pods"))}},
		{"*/subresource covers resource/subresource",
			[]rbacv1.PolicyRule{rule(list("get"), list("apps"), list("*/scale"))},
			[]rbacv1.PolicyRule{rule(list("get"), list("apps"), list("deployments/scale"))}, nil},
		{"resource does not cover subresource",
			[]rbacv1.PolicyRule{rule(list("get"), list(""), list("pods"))},
			[]rbacv1.PolicyRule{rule(list("get"), list(""), list("pods/log"))},
			[]rbacv1.PolicyRule{rule(list("get"), list(""), list("pods/log"))}},
		{"unnamed covers named",
			[]rbacv1.PolicyRule{rule(list("get"), list(""), list("secrets"))},
			[]rbacv1.PolicyRule{named(list("get"), list(""), list("secrets"), list("a", "b"))}, nil},
		{"named does not cover unnamed",
			[]rbacv1.PolicyRule{named(list("get"), list(""), list("secrets"), list("a"))},
			[]rbacv1.PolicyRule{rule(list("get"), list(""), list("secrets"))},
			[]rbacv1.PolicyRule{rule(list("get"), list(""), list("secrets"))}},
		{"named covers some names",
			[]rbacv1.PolicyRule{named(list("get"), list(""), list("secrets"), list("a"))},
			[]rbacv1.PolicyRule{named(list("get"), list(""), list("secrets"), list("a", "b"))},
			[]rbacv1.PolicyRule{named(list("get"), list(""), list("secrets"), list("b"))}},
		{"url prefix",
			[]rbacv1.PolicyRule{urls(list("get"), list("/logs/*"))},
			[]rbacv1.PolicyRule{urls(list("get"), list("/logs/a", "/logs/*", "/healthz"))},
			[]rbacv1.PolicyRule{urls(list("get"), list("/healthz"))}},
		{"url star",
			[]rbacv1.PolicyRule{urls(list("*"), list("*"))},
			[]rbacv1.PolicyRule{urls(list("get", "post"), list("/a", "/b/*"))}, nil},
		{"resource owner does not cover urls",
			[]rbacv1.PolicyRule{rule(list("*"), list("*"), list("*"))},
			[]rbacv1.PolicyRule{urls(list("get"), list("/healthz"))},
			[]rbacv1.PolicyRule{urls(list("get"), list("/healthz"))}},
		{"rule without groups grants nothing",
			nil, []rbacv1.PolicyRule{{Verbs: list("get"), Resources: list("pods")}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, missing := Covers(tt.owner, tt.servant)
			if ok != (len(tt.missing) == 0) {
				t.Errorf("covers = %v with missing %v", ok, missing)
			}
			if diff := cmp.Diff(tt.missing, missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfirmNoEscalation(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"dev", user.AllAuthenticated}}
	tests := []struct {
		name  string
		u     user.Info
		owner []rbacv1.PolicyRule
		rules []rbacv1.PolicyRule
		want  string
	}{
		{"covered", alice, []rbacv1.PolicyRule{rule(list("*"), list("*"), list("*"))}, []rbacv1.PolicyRule{rule(list("get"), list(""), list("pods"))}, ""},
		{"verbs of one resource on one line", alice, nil,
			[]rbacv1.PolicyRule{rule(list("get", "list"), list(""), list("pods"))},
			"user \"alice\" (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n" +
				`{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`},
		{"sorted lines, names and urls", alice,
			[]rbacv1.PolicyRule{rule(list("get"), list("apps"), list("deployments"))},
			[]rbacv1.PolicyRule{
				{Verbs: list("get"), NonResourceURLs: list("/metrics")},
				{Verbs: list("get", "update"), APIGroups: list(""), Resources: list("secrets"), ResourceNames: list("a")},
				rule(list("get", "delete"), list("apps"), list("deployments", "replicasets")),
			},
			"user \"alice\" (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n" +
				`{APIGroups:[""], Resources:["secrets"], ResourceNames:["a"], Verbs:["get" "update"]}` + "\n" +
				`{APIGroups:["apps"], Resources:["deployments"], Verbs:["delete"]}` + "\n" +
				`{APIGroups:["apps"], Resources:["replicasets"], Verbs:["get" "delete"]}` + "\n" +
				`{NonResourceURLs:["/metrics"], Verbs:["get"]}`},
		{"user without groups", &user.DefaultInfo{Name: "bob"}, nil,
			[]rbacv1.PolicyRule{{Verbs: list("get"), NonResourceURLs: list("*")}},
			"user \"bob\" (groups=[]) is attempting to grant RBAC permissions not currently held:\n" +
				`{NonResourceURLs:["*"], Verbs:["get"]}`},
		{"no user", nil, nil, nil, "no user on context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ConfirmNoEscalation(tt.u, tt.owner, tt.rules)
			if got := errString(err); got != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
