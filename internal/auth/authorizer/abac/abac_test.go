package abac

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

func named(name string, groups ...string) user.Info {
	return &user.DefaultInfo{Name: name, Groups: append(groups, user.AllAuthenticated)}
}

var anonymous = &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}

func res(u user.Info, verb, ns, group, resource string) authorizer.Attributes {
	return authorizer.Attributes{User: u, Verb: verb, Namespace: ns, APIGroup: group, Resource: resource, ResourceRequest: true}
}

func path(u user.Info, verb, p string) authorizer.Attributes {
	return authorizer.Attributes{User: u, Verb: verb, Path: p}
}

func TestAuthorize(t *testing.T) {
	tests := []struct {
		file  string
		attrs authorizer.Attributes
		allow bool
	}{
		// legacy format: empty fields are wildcards
		{"legacy_policy.jsonl", res(named("admin"), "delete", "kube-system", "apps", "deployments"), true},
		{"legacy_policy.jsonl", path(named("admin"), "post", "/anything"), true},
		{"legacy_policy.jsonl", res(named("scheduler"), "get", "ns", "", "pods"), true},
		{"legacy_policy.jsonl", res(named("scheduler"), "create", "ns", "", "pods"), false},
		{"legacy_policy.jsonl", res(named("scheduler"), "create", "ns", "", "bindings"), true},
		{"legacy_policy.jsonl", res(named("kubelet"), "watch", "ns", "", "endpoints"), true},
		{"legacy_policy.jsonl", res(named("kubelet"), "update", "ns", "", "services"), false},
		{"legacy_policy.jsonl", res(named("alice"), "delete", "projectCaribou", "batch", "jobs"), true},
		{"legacy_policy.jsonl", res(named("alice"), "get", "other", "", "pods"), false},
		{"legacy_policy.jsonl", path(named("alice"), "get", "/healthz"), false},
		{"legacy_policy.jsonl", res(named("bob"), "list", "projectCaribou", "", "pods"), true},
		{"legacy_policy.jsonl", res(named("bob"), "patch", "projectCaribou", "", "pods"), false},
		{"legacy_policy.jsonl", res(named("mallory"), "get", "projectCaribou", "", "pods"), false},
		{"legacy_policy.jsonl", res(nil, "get", "projectCaribou", "", "pods"), false},

		{"v1beta1_policy.jsonl", path(named("anyone"), "get", "/api"), true},
		{"v1beta1_policy.jsonl", path(named("anyone"), "post", "/api"), false},
		{"v1beta1_policy.jsonl", path(anonymous, "get", "/version"), true},
		{"v1beta1_policy.jsonl", path(anonymous, "get", "/api"), false},
		{"v1beta1_policy.jsonl", res(named("admin"), "delete", "x", "rbac.authorization.k8s.io", "roles"), true},
		{"v1beta1_policy.jsonl", res(named("kubelet"), "get", "x", "", "pods"), true},
		{"v1beta1_policy.jsonl", res(named("kubelet"), "create", "x", "", "pods"), false},
		{"v1beta1_policy.jsonl", res(named("kubelet"), "create", "x", "", "events"), true},
		{"v1beta1_policy.jsonl", res(named("bob"), "get", "projectCaribou", "", "pods"), true},
		{"v1beta1_policy.jsonl", res(named("bob"), "get", "other", "", "pods"), false},
		// apiGroup must match: v1beta1 has no implicit wildcard
		{"v1beta1_policy.jsonl", res(named("carol"), "update", "x", "apps", "deployments"), true},
		{"v1beta1_policy.jsonl", res(named("carol"), "update", "x", "extensions", "deployments"), false},
		{"v1beta1_policy.jsonl", res(named("kubelet"), "get", "x", "apps", "pods"), false},
		// trailing * matches a prefix
		{"v1beta1_policy.jsonl", path(named("dave", "ops"), "post", "/logs/kubelet.log"), true},
		{"v1beta1_policy.jsonl", path(named("dave", "ops"), "post", "/logsx"), false},
		{"v1beta1_policy.jsonl", path(named("dave"), "get", "/logs/kubelet.log"), true}, // the authenticated read-all rule
		{"v1beta1_policy.jsonl", path(named("dave"), "delete", "/logs/kubelet.log"), false},
		// user "*" is every authenticated user, never anonymous
		{"v1beta1_policy.jsonl", res(named("erin"), "get", "public", "", "configmaps"), true},
		{"v1beta1_policy.jsonl", res(anonymous, "get", "public", "", "configmaps"), false},
	}
	authorizers := map[string]*Authorizer{}
	for _, tt := range tests {
		a := authorizers[tt.file]
		if a == nil {
			var err error
			if a, err = NewFromFile(filepath.Join("testdata", tt.file)); err != nil {
				t.Fatal(err)
			}
			authorizers[tt.file] = a
		}
		d, reason, err := a.Authorize(context.Background(), tt.attrs)
		if err != nil {
			t.Fatal(err)
		}
		want, wantReason := authorizer.DecisionNoOpinion, "No policy matched."
		if tt.allow {
			want, wantReason = authorizer.DecisionAllow, ""
		}
		if d != want || reason != wantReason {
			t.Errorf("%s: %+v = %v %q, want %v %q", tt.file, tt.attrs, d, reason, want, wantReason)
		}
	}
	if n := authorizers["legacy_policy.jsonl"].UnversionedLines(); n != 9 {
		t.Errorf("legacy file has %d unversioned lines, want 9", n)
	}
	if n := authorizers["v1beta1_policy.jsonl"].UnversionedLines(); n != 0 {
		t.Errorf("v1beta1 file has %d unversioned lines, want 0", n)
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    policy
		legacy  bool
		wantErr string
	}{
		{name: "v0 empty object", line: `{}`, legacy: true, want: policy{Group: user.AllAuthenticated, Namespace: "*", Resource: "*", APIGroup: "*", NonResourcePath: "*"}},
		{name: "v0 star user", line: `{"user":"*","resource":"pods"}`, legacy: true, want: policy{Group: user.AllAuthenticated, Namespace: "*", Resource: "pods", APIGroup: "*"}},
		{name: "v0 group", line: `{"group":"dev","namespace":"ns","readonly":true}`, legacy: true, want: policy{Group: "dev", Namespace: "ns", Resource: "*", APIGroup: "*", Readonly: true}},
		{name: "v0 by version", line: `{"apiVersion":"abac.authorization.kubernetes.io/v0","kind":"Policy","user":"a","namespace":"n","resource":"r"}`, legacy: true, want: policy{User: "a", Namespace: "n", Resource: "r", APIGroup: "*"}},
		{name: "kind without version is v0", line: `{"kind":"Policy","user":"a"}`, legacy: true, want: policy{User: "a", Namespace: "*", Resource: "*", APIGroup: "*", NonResourcePath: "*"}},
		{name: "v0 YAML", line: `user: alice`, legacy: true, want: policy{User: "alice", Namespace: "*", Resource: "*", APIGroup: "*", NonResourcePath: "*"}},
		{name: "v0 ignores v1beta1 fields", line: `{"user":"a","apiGroup":"apps","nonResourcePath":"/x"}`, legacy: true, want: policy{User: "a", Namespace: "*", Resource: "*", APIGroup: "*", NonResourcePath: "*"}},
		{
			name: "v1beta1 keeps empty fields",
			line: `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"a","resource":"pods"}}`,
			want: policy{User: "a", Resource: "pods"},
		},
		{
			name: "v1beta1 star group",
			line: `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"bob","group":"*","nonResourcePath":"/x"}}`,
			want: policy{Group: user.AllAuthenticated, NonResourcePath: "/x"},
		},
		{
			name: "field names are case-sensitive",
			line: `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"User":"a"}}`,
			want: policy{},
		},
		{name: "unknown kind", line: `{"apiVersion":"v1","kind":"Pod"}`, wantErr: `no kind "Pod" is registered for version "v1"`},
		{name: "v1beta1 without kind", line: `{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","spec":{}}`, wantErr: `no kind "Policy" is registered`},
		{name: "not an object", line: `[1,2]`, wantErr: "couldn't get version/kind"},
		{name: "bad JSON", line: `{"user":`, wantErr: "couldn't get version/kind"},
		{name: "wrong type", line: `{"readonly":"yes"}`, wantErr: "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, legacy, err := parseLine([]byte(tt.line))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if legacy != tt.legacy {
				t.Errorf("legacy = %v, want %v", legacy, tt.legacy)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("policy (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewFromFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"user\":\"a\"}\n\n{\"apiVersion\":\"v1\",\"kind\":\"Pod\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, "long.jsonl")
	if err := os.WriteFile(long, []byte(`{"user":"`+strings.Repeat("a", 70000)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, want string
	}{
		{bad, "error reading policy file " + bad + `, line 3: {"apiVersion":"v1","kind":"Pod"}: no kind "Pod" is registered for version "v1"`},
		{long, "error reading policy file " + long + ": bufio.Scanner: token too long"},
		{filepath.Join(dir, "missing"), "no such file or directory"},
	}
	for _, tt := range tests {
		_, err := NewFromFile(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewFromFile(%s) err = %v, want %q", tt.path, err, tt.want)
		}
	}
}

func TestRulesFor(t *testing.T) {
	a, err := NewFromFile(filepath.Join("testdata", "v1beta1_policy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	read := []string{"get", "list", "watch"}
	tests := []struct {
		name      string
		user      user.Info
		namespace string
		rules     []authorizer.ResourceRule
		nonRules  []authorizer.NonResourceRule
	}{
		{
			name: "bob in his namespace", user: named("bob"), namespace: "projectCaribou",
			rules: []authorizer.ResourceRule{{Verbs: read, APIGroups: []string{""}, Resources: []string{"pods"}}},
		},
		{name: "bob elsewhere", user: named("bob"), namespace: "other"},
		{
			// as upstream, only policies whose namespace matches are listed, so
			// non-resource policies show only when they name namespace "*"
			name: "admin", user: named("admin"), namespace: "x",
			rules:    []authorizer.ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
			nonRules: []authorizer.NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
		},
		{
			name: "everyone in public", user: named("erin"), namespace: "public",
			rules: []authorizer.ResourceRule{{Verbs: read, APIGroups: []string{""}, Resources: []string{"configmaps"}}},
		},
		{name: "anonymous", user: anonymous, namespace: "public"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, nonRules, incomplete, err := a.RulesFor(context.Background(), tt.user, tt.namespace)
			if err != nil || incomplete {
				t.Fatalf("incomplete = %v, err = %v", incomplete, err)
			}
			if diff := cmp.Diff(tt.rules, rules); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.nonRules, nonRules); diff != "" {
				t.Errorf("non-resource rules (-want +got):\n%s", diff)
			}
		})
	}
}

func BenchmarkAuthorize(b *testing.B) {
	a, err := NewFromFile(filepath.Join("testdata", "v1beta1_policy.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	attrs := res(named("nobody"), "get", "ns", "", "secrets")
	for b.Loop() {
		_, _, _ = a.Authorize(context.Background(), attrs)
	}
}
