package e2e

import (
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// stdin runs kubectl with stdin and fails the test on error; it returns
// stdout and stderr together, where kubectl prints warnings.
func (r kubectlRunner) stdin(in string, args ...string) string {
	r.t.Helper()
	out, stderr, err := r.k.KubectlOutput(r.t, in, args...)
	if err != nil {
		r.t.Fatalf("kubectl %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return out + stderr
}

// webDeployment is a Deployment manifest with the given replicas and
// containers ("name=image" pairs).
func webDeployment(replicas string, containers ...string) string {
	var b strings.Builder
	b.WriteString(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: ` + replicas + `
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
`)
	for _, c := range containers {
		name, image, _ := strings.Cut(c, "=")
		b.WriteString("      - name: " + name + "\n        image: " + image + "\n")
	}
	return b.String()
}

// TestKubectlClientSideApply applies a Deployment, changes it and applies
// again: kubectl computes a three-way strategic merge patch from the
// last-applied annotation and the OpenAPI schema, so the removed
// container goes and fields set by others stay.
func TestKubectlClientSideApply(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}

	mustHave(t, r.stdin(webDeployment("2", "app=nginx:1.27", "sidecar=busybox:1.36"), "apply", "-f", "-"), "deployment.apps/web created")
	lastApplied := r.jsonpath(`{.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}`, "get", "deployment", "web")
	mustHave(t, lastApplied, `"sidecar"`, `"replicas":2`)
	r.run("label", "deployment", "web", "owner=ops")

	mustHave(t, r.stdin(webDeployment("3", "app=nginx:1.28"), "apply", "-f", "-"), "deployment.apps/web configured")
	got := r.jsonpath("{.spec.replicas} {.spec.template.spec.containers[*].name} {.spec.template.spec.containers[0].image} {.metadata.labels.owner} {.metadata.generation}", "get", "deployment", "web")
	if got != "3 app nginx:1.28 ops 2" {
		t.Errorf("after the second apply: replicas containers image label generation = %q", got)
	}
	lastApplied = r.jsonpath(`{.metadata.annotations.kubectl\.kubernetes\.io/last-applied-configuration}`, "get", "deployment", "web")
	if strings.Contains(lastApplied, "sidecar") || !strings.Contains(lastApplied, "nginx:1.28") {
		t.Errorf("last-applied-configuration not updated: %s", lastApplied)
	}
	mustHave(t, r.stdin(webDeployment("3", "app=nginx:1.28"), "apply", "-f", "-"), "deployment.apps/web unchanged")

	// diff shows what an apply would change, through a server-side dry
	// run, and changes nothing.
	out, stderr, err := k.KubectlOutput(t, webDeployment("5", "app=nginx:1.29"), "diff", "-f", "-")
	if err == nil {
		t.Fatalf("kubectl diff found no difference:\n%s", out)
	}
	mustHave(t, out+stderr, "-  replicas: 3", "+  replicas: 5", "+      - image: nginx:1.29")
	if got := r.jsonpath("{.spec.replicas}", "get", "deployment", "web"); got != "3" {
		t.Errorf("kubectl diff changed replicas to %s", got)
	}
	// A dry-run apply answers what would be stored and stores nothing.
	mustHave(t, r.stdin(webDeployment("7", "app=nginx:1.28"), "apply", "--dry-run=server", "-f", "-"), "deployment.apps/web configured (server dry run)")
	if got := r.jsonpath("{.spec.replicas}", "get", "deployment", "web"); got != "3" {
		t.Errorf("dry-run apply changed replicas to %s", got)
	}
}

// TestKubectlServerSideApply: two managers applying the same field
// conflict, the conflict names the field and the other manager, and
// --force-conflicts moves the field to the forcing manager.
func TestKubectlServerSideApply(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}

	mustHave(t, r.stdin(webDeployment("2", "app=nginx:1.27"), "apply", "--server-side", "--field-manager=alice", "-f", "-"), "deployment.apps/web serverside-applied")
	out := r.fails(webDeployment("4", "app=nginx:1.27"), "apply", "--server-side", "--field-manager=bob", "-f", "-")
	mustHave(t, out, "Apply failed with 1 conflict", `conflict with "alice"`, ".spec.replicas")

	mustHave(t, r.stdin(webDeployment("4", "app=nginx:1.27"), "apply", "--server-side", "--field-manager=bob", "--force-conflicts", "-f", "-"), "deployment.apps/web serverside-applied")
	if got := r.jsonpath("{.spec.replicas}", "get", "deployment", "web"); got != "4" {
		t.Errorf("replicas after the forced apply = %s, want 4", got)
	}
	yaml := r.run("get", "deployment", "web", "-o", "yaml", "--show-managed-fields")
	managers := managedFieldsOwners(t, k)
	if !strings.Contains(managers["bob"], "f:replicas") || strings.Contains(managers["alice"], "f:replicas") {
		t.Errorf("spec.replicas should now belong to bob only: %v\n%s", managers, yaml)
	}
	if !strings.Contains(managers["alice"], `k:{\"name\":\"app\"}`) {
		t.Errorf("alice should still own the container she applied: %v", managers)
	}
	mustHave(t, yaml, "manager: alice", "manager: bob", "operation: Apply", "fieldsType: FieldsV1")
	// Without --show-managed-fields kubectl hides them, as upstream.
	if strings.Contains(r.run("get", "deployment", "web", "-o", "yaml"), "managedFields") {
		t.Error("kubectl get -o yaml shows managedFields without --show-managed-fields")
	}

	// An imperative update by another manager takes the fields it changes.
	r.run("scale", "deployment", "web", "--replicas=6")
	managers = managedFieldsOwners(t, k)
	if strings.Contains(managers["bob"], "f:replicas") {
		t.Errorf("after kubectl scale, bob still owns spec.replicas: %v", managers)
	}
}

// managedFieldsOwners maps each manager of deployment web to the JSON of
// the fields it owns.
func managedFieldsOwners(t *testing.T, k *framework.Kapi) map[string]string {
	t.Helper()
	r := kubectlRunner{t, k}
	out := r.run("get", "deployment", "web", "--show-managed-fields", "-o",
		`jsonpath={range .metadata.managedFields[*]}{.manager}{"\t"}{.fieldsV1}{"\n"}{end}`)
	owners := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		manager, fields, _ := strings.Cut(line, "\t")
		owners[manager] += fields
	}
	return owners
}

// TestKubectlPatchTypes patches with every type kubectl offers, on the
// object and on its status subresource, and checks the errors users see.
// The deployment controller is off: it would rewrite the status the test
// patches, as kube-controller-manager's does.
func TestKubectlPatchTypes(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"), framework.WithArgs("--controllers=*,-deployment-controller"))
	r := kubectlRunner{t, k}
	r.stdin(webDeployment("2", "app=nginx:1.27", "sidecar=busybox:1.36"), "create", "-f", "-")

	mustHave(t, r.run("patch", "deployment", "web", "--type=json", "-p", `[{"op":"replace","path":"/spec/replicas","value":4}]`), "deployment.apps/web patched")
	mustHave(t, r.run("patch", "deployment", "web", "--type=merge", "-p", `{"metadata":{"labels":{"tier":"front"}}}`), "patched")
	mustHave(t, r.run("patch", "deployment", "web", "--type=strategic", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.29"}]}}}}`), "patched")
	got := r.jsonpath("{.spec.replicas} {.metadata.labels.tier} {.spec.template.spec.containers[*].name} {.spec.template.spec.containers[0].image}", "get", "deployment", "web")
	if got != "4 front app sidecar nginx:1.29" {
		t.Errorf("after json, merge and strategic patches: %q", got)
	}
	mustHave(t, r.run("patch", "deployment", "web", "--type=strategic", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}`), "patched")
	if got := r.jsonpath("{.spec.template.spec.containers[*].name}", "get", "deployment", "web"); got != "app" {
		t.Errorf("after $patch: delete, containers = %q", got)
	}

	mustHave(t, r.run("patch", "deployment", "web", "--subresource=status", "--type=merge", "-p", `{"status":{"observedGeneration":9,"replicas":4},"spec":{"replicas":1}}`), "patched")
	if got := r.jsonpath("{.status.observedGeneration} {.status.replicas} {.spec.replicas}", "get", "deployment", "web"); got != "9 4 4" {
		t.Errorf("status patch: observedGeneration status.replicas spec.replicas = %q, want 9 4 4 (spec ignored)", got)
	}
	mustHave(t, r.run("patch", "deployment", "web", "--subresource=scale", "--type=merge", "-p", `{"spec":{"replicas":3}}`), "patched")
	if got := r.jsonpath("{.spec.replicas}", "get", "deployment", "web"); got != "3" {
		t.Errorf("scale patch: replicas = %s", got)
	}

	// Upstream drops the JSON patch library's text from a failed test op.
	mustHave(t, r.fails("", "patch", "deployment", "web", "--type=json", "-p", `[{"op":"test","path":"/spec/replicas","value":99}]`), "The request is invalid: the server rejected our request due to an error in our request")
	mustHave(t, r.fails("", "patch", "deployment", "web", "--type=merge", "-p", `{"spec":{"selector":{"matchLabels":{"app":"other"}}}}`), "field is immutable")
	mustHave(t, r.fails("", "patch", "deployment", "web", "--type=json", "-p", `{"op":"add"}`), "json: cannot unmarshal object")
}

// TestKubectlExplain prints field docs from the OpenAPI v3 documents.
func TestKubectlExplain(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}

	out := r.run("explain", "deployment.spec.strategy")
	mustHave(t, out, "GROUP:      apps", "KIND:       Deployment", "VERSION:    v1",
		"FIELD: strategy <DeploymentStrategy>",
		"The deployment strategy to use to replace existing pods with new ones.",
		"rollingUpdate\t<RollingUpdateDeployment>", "type\t<string>")

	out = r.run("explain", "pods", "--recursive")
	mustHave(t, out, "KIND:       Pod", "Pod is a collection of containers that can run on a host.",
		"containers\t<[]Container> -required-", "livenessProbe\t<Probe>", "ephemeralContainers\t<[]EphemeralContainer>")

	mustHave(t, r.run("explain", "configmaps.data"), "FIELD: data <map[string]string>")
	mustHave(t, r.fails("", "explain", "deployment.spec.nosuchfield"), `field "nosuchfield" does not exist`)
}

// TestKubectlFieldValidation: kubectl finds field validation in the
// OpenAPI document and lets the server check the fields.
func TestKubectlFieldValidation(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}
	bad := strings.Replace(webDeployment("1", "app=nginx:1.27"), "  replicas: 1", "  replicas: 1\n  replicaz: 2", 1)

	out := r.fails(bad, "create", "--validate=strict", "-f", "-")
	mustHave(t, out, `strict decoding error: unknown field "spec.replicaz"`)
	out = r.stdin(bad, "create", "--validate=warn", "-f", "-")
	mustHave(t, out, `Warning: unknown field "spec.replicaz"`, "deployment.apps/web created")
	r.run("delete", "deployment", "web")
	// kubectl's default is strict.
	mustHave(t, r.fails(bad, "create", "-f", "-"), `unknown field "spec.replicaz"`)
	mustHave(t, r.stdin(webDeployment("1", "app=nginx:1.27"), "create", "-f", "-"), "deployment.apps/web created")
}

// TestKubectlDryRun: every write verb with --dry-run=server answers what
// would be stored and stores nothing.
func TestKubectlDryRun(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}

	mustHave(t, r.stdin(webDeployment("2", "app=nginx:1.27"), "create", "--dry-run=server", "-o", "jsonpath={.metadata.uid} {.spec.strategy.type}", "-f", "-"), " RollingUpdate")
	mustHave(t, r.fails("", "get", "deployment", "web"), `deployments.apps "web" not found`)

	r.stdin(webDeployment("2", "app=nginx:1.27"), "create", "-f", "-")
	mustHave(t, r.run("patch", "deployment", "web", "--dry-run=server", "--type=merge", "-p", `{"spec":{"replicas":5}}`, "-o", "jsonpath={.spec.replicas}"), "5")
	mustHave(t, r.run("scale", "deployment", "web", "--dry-run=server", "--replicas=6"), "scaled (server dry run)")
	mustHave(t, r.run("delete", "deployment", "web", "--dry-run=server"), `deployment.apps "web" deleted from default namespace (server dry run)`)
	if got := r.jsonpath("{.spec.replicas}", "get", "deployment", "web"); got != "2" {
		t.Errorf("after dry runs, replicas = %s, want 2", got)
	}
	// Invalid objects are refused in a dry run too.
	mustHave(t, r.fails(webDeployment("-1", "app=nginx:1.27"), "apply", "--dry-run=server", "-f", "-"), "spec.replicas: Invalid value: -1")
}
