package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
)

func writePolicy(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadPolicy(t *testing.T) {
	yes := true
	path := writePolicy(t, `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
omitManagedFields: true
rules:
- level: None
  users: ["system:kube-proxy"]
  verbs: ["watch"]
  resources:
  - group: ""
    resources: ["endpoints", "services", "services/status"]
- level: Metadata
  nonResourceURLs: ["/healthz*", "/version"]
- level: RequestResponse
  namespaces: ["kube-system"]
  userGroups: ["system:nodes"]
  omitStages: [ResponseStarted]
  omitManagedFields: true
  resources:
  - group: "apps"
    resources: ["deployments"]
    resourceNames: ["web"]
`)
	got, err := LoadPolicy(path)
	if err != nil {
		t.Fatal(err)
	}
	want := &auditv1.Policy{
		OmitStages:        []auditv1.Stage{auditv1.StageRequestReceived},
		OmitManagedFields: true,
		Rules: []auditv1.PolicyRule{
			{Level: auditv1.LevelNone, Users: []string{"system:kube-proxy"}, Verbs: []string{"watch"},
				Resources: []auditv1.GroupResources{{Group: "", Resources: []string{"endpoints", "services", "services/status"}}}},
			{Level: auditv1.LevelMetadata, NonResourceURLs: []string{"/healthz*", "/version"}},
			{Level: auditv1.LevelRequestResponse, Namespaces: []string{"kube-system"}, UserGroups: []string{"system:nodes"},
				OmitStages: []auditv1.Stage{auditv1.StageResponseStarted}, OmitManagedFields: &yes,
				Resources: []auditv1.GroupResources{{Group: "apps", Resources: []string{"deployments"}, ResourceNames: []string{"web"}}}},
		},
	}
	want.APIVersion, want.Kind = "audit.k8s.io/v1", "Policy"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
}

func TestLoadPolicyJSON(t *testing.T) {
	path := writePolicy(t, `{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"Metadata"}]}`)
	p, err := LoadPolicy(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rules) != 1 || p.Rules[0].Level != auditv1.LevelMetadata {
		t.Errorf("rules = %+v, want one Metadata rule", p.Rules)
	}
}

func TestLoadPolicyErrors(t *testing.T) {
	const head = "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
	tests := []struct {
		name, content string
		want          []string // substrings of the error
	}{
		{"no rules", head + "rules: []\n", []string{"loaded illegal policy with 0 rules"}},
		{"rules missing", head, []string{"loaded illegal policy with 0 rules"}},
		{"no kind", "apiVersion: audit.k8s.io/v1\nrules: [{level: None}]\n", []string{"Object 'Kind' is missing"}},
		{"old version", "apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n",
			[]string{`no kind "Policy" is registered for version "audit.k8s.io/v1beta1"`}},
		{"wrong kind", "apiVersion: audit.k8s.io/v1\nkind: Event\n", []string{`no kind "Event"`}},
		{"unknown field", head + "rules: [{level: None, bogus: 1}]\n", []string{"strict decoding error", `unknown field "bogus"`}},
		{"duplicate field", head + "rules: [{level: None, level: Metadata}]\n", []string{"strict decoding error"}},
		{"not yaml", "\t{{", []string{"failed decoding"}},
		{"level missing", head + "rules: [{users: [a]}]\n", []string{"rules[0].level: Required value"}},
		{"level unknown", head + "rules: [{level: Everything}]\n",
			[]string{`rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"`}},
		{"bad stage", head + "omitStages: [Sometimes]\nrules: [{level: None, omitStages: [Never]}]\n", []string{
			`omitStages[0]: Invalid value: "Sometimes": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic`,
			`rules[0].omitStages[0]: Invalid value: "Never"`,
		}},
		{"url without slash", head + "rules: [{level: None, nonResourceURLs: [healthz]}]\n",
			[]string{`rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character`}},
		{"url inner wildcard", head + "rules: [{level: None, nonResourceURLs: [/a*/b]}]\n",
			[]string{"non-resource URL wildcards '*' must be the final character of the rule"}},
		{"urls and resources", head + "rules: [{level: None, nonResourceURLs: [/a], namespaces: [x]}]\n",
			[]string{"rules cannot apply to both regular resources and non-resource URLs"}},
		{"group with version", head + "rules: [{level: None, resources: [{group: rbac.authorization.k8s.io/v1}]}]\n",
			[]string{`rules[0].resources.group: Invalid value: "rbac.authorization.k8s.io/v1"`}},
		{"names without resources", head + "rules: [{level: None, resources: [{group: apps, resourceNames: [x]}]}]\n",
			[]string{"rules[0].resources.resourceNames", "using resourceNames requires at least one resource"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writePolicy(t, tt.content)
			_, err := LoadPolicy(path)
			if err == nil {
				t.Fatal("LoadPolicy succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestLoadPolicyFileErrors(t *testing.T) {
	if _, err := LoadPolicy(""); err == nil || err.Error() != "file path not specified" {
		t.Errorf("empty path: err = %v", err)
	}
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	if _, err := LoadPolicy(missing); err == nil || !strings.Contains(err.Error(), "failed to read file path") {
		t.Errorf("missing file: err = %v", err)
	}
	path := writePolicy(t, "apiVersion: audit.k8s.io/v1\nkind: Policy\n")
	if _, err := LoadPolicy(path); err == nil || !strings.HasSuffix(err.Error(), "from file "+path) {
		t.Errorf("err = %v, want it to name the file", err)
	}
}
