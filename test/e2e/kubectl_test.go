package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// kubectlWorkflow is what a user types on day one, run against one server.
func kubectlWorkflow(t *testing.T, k *framework.Kapi) {
	run := func(args ...string) string {
		t.Helper()
		out, err := k.Kubectl(t, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	mustContain := func(out string, wants ...string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Fatalf("output does not contain %q:\n%s", w, out)
			}
		}
	}

	mustContain(run("get", "--raw", "/readyz"), "ok")
	mustContain(run("create", "namespace", "demo"), "namespace/demo created")
	mustContain(run("-n", "demo", "create", "configmap", "settings", "--from-literal=color=blue", "--from-literal=size=L"), "configmap/settings created")

	yaml := run("-n", "demo", "get", "cm", "settings", "-o", "yaml")
	mustContain(yaml, "apiVersion: v1", "kind: ConfigMap", "color: blue", "resourceVersion:", "uid:", "creationTimestamp:")

	table := run("-n", "demo", "get", "cm")
	mustContain(table, "NAME", "DATA", "AGE", "settings")
	if !strings.Contains(table, "settings   2") && !strings.Contains(table, "settings           2") {
		// the DATA column must count two keys
		fields := lineFields(table, "settings")
		if len(fields) < 2 || fields[1] != "2" {
			t.Fatalf("DATA column of settings is not 2:\n%s", table)
		}
	}

	mustContain(run("-n", "demo", "label", "cm", "settings", "tier=web"), "configmap/settings labeled")
	mustContain(run("-n", "demo", "get", "cm", "-l", "tier=web", "-o", "name"), "configmap/settings")
	if out := run("-n", "demo", "get", "cm", "-l", "tier=db", "-o", "name"); strings.Contains(out, "settings") {
		t.Fatalf("label selector tier=db matched settings:\n%s", out)
	}

	// An edit-style update: read, change, replace; kubectl asks the
	// server to validate the fields (it finds fieldValidation in OpenAPI).
	edited := strings.Replace(yaml, "color: blue", "color: green", 1)
	if _, err := k.KubectlStdin(t, edited, "replace", "-f", "-"); err == nil {
		t.Fatalf("replace with a stale resourceVersion succeeded; want a conflict")
	}
	fresh := run("-n", "demo", "get", "cm", "settings", "-o", "yaml")
	mustContain(run2(t, k, strings.Replace(fresh, "color: blue", "color: green", 1)), "configmap/settings replaced")
	mustContain(run("-n", "demo", "get", "cm", "settings", "-o", "jsonpath={.data.color}"), "green")

	mustContain(run("-n", "demo", "patch", "cm", "settings", "--type=merge", "-p", `{"data":{"size":"XL"}}`), "configmap/settings patched")
	mustContain(run("-n", "demo", "get", "cm", "settings", "-o", "jsonpath={.data.size}"), "XL")

	resources := run("api-resources")
	mustContain(resources, "configmaps", "cm", "namespaces", "ns", "serviceaccounts", "sa", "events", "ev", "secrets", "leases", "coordination.k8s.io/v1")

	mustContain(run("-n", "demo", "delete", "cm", "settings"), `configmap "settings" deleted`)
	_, stderr, err := k.KubectlOutput(t, "", "-n", "demo", "get", "cm", "settings")
	if err == nil || !strings.Contains(stderr, `configmaps "settings" not found`) {
		t.Fatalf("get after delete: err=%v stderr=%s", err, stderr)
	}

	mustContain(run("delete", "namespace", "demo", "--timeout=60s"), `namespace "demo" deleted`)
}

func run2(t *testing.T, k *framework.Kapi, manifest string) string {
	t.Helper()
	out, err := k.KubectlStdin(t, manifest, "replace", "-f", "-")
	if err != nil {
		t.Fatalf("kubectl replace: %v\n%s", err, out)
	}
	return out
}

// lineFields returns the whitespace-separated fields of the first line
// starting with prefix.
func lineFields(out, prefix string) []string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			return strings.Fields(line)
		}
	}
	return nil
}

// kubectlWatch checks that `kubectl get -w` sees a configmap created after
// it started.
func kubectlWatch(t *testing.T, k *framework.Kapi) {
	run := func(args ...string) {
		t.Helper()
		if out, err := k.Kubectl(t, args...); err != nil {
			t.Fatalf("kubectl %v: %v\n%s", args, err, out)
		}
	}
	run("create", "namespace", "watching")
	w := k.KubectlBackground(t, "-n", "watching", "get", "cm", "-w", "--request-timeout=60s")
	// Wait until the watch is established: the table header of an empty
	// list is not printed, so wait for the first event of a seed object.
	run("-n", "watching", "create", "configmap", "seed")
	if !w.WaitFor("seed", 30*time.Second) {
		t.Fatalf("kubectl get -w never printed seed:\n%s", w.Output())
	}
	run("-n", "watching", "create", "configmap", "later", "--from-literal=a=b")
	if !w.WaitFor("later", 30*time.Second) {
		t.Fatalf("kubectl get -w did not see the create:\n%s", w.Output())
	}
	w.Stop()
}
