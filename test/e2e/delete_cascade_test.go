package e2e

import (
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// TestKubectlDeleteCascade: `kubectl delete --cascade=orphan|foreground`
// leaves the object marked with the finalizer a garbage collector acts
// on, and the default (background) deletes it. --wait=false because no
// garbage collector runs to finish the job.
func TestKubectlDeleteCascade(t *testing.T) {
	k := framework.StartKapi(t)
	r := kubectlRunner{t, k}
	r.run("create", "namespace", "cascade")
	for _, name := range []string{"orphaned", "foreground", "background"} {
		r.run("-n", "cascade", "create", "configmap", name)
	}
	for _, tc := range []struct{ name, cascade, finalizers string }{
		{"orphaned", "orphan", `["orphan"]`},
		{"foreground", "foreground", `["foregroundDeletion"]`},
	} {
		mustHave(t, r.run("-n", "cascade", "delete", "configmap", tc.name, "--cascade="+tc.cascade, "--wait=false"), `configmap "`+tc.name+`" deleted`)
		got := r.jsonpath("{.metadata.finalizers} {.metadata.deletionTimestamp}", "-n", "cascade", "get", "configmap", tc.name)
		finalizers, timestamp, _ := strings.Cut(got, " ")
		if finalizers != tc.finalizers || timestamp == "" {
			t.Errorf("%s after --cascade=%s: finalizers %s, deletionTimestamp %q; want %s and a timestamp", tc.name, tc.cascade, finalizers, timestamp, tc.finalizers)
		}
	}
	r.run("-n", "cascade", "delete", "configmap", "background")
	if out := r.fails("", "-n", "cascade", "get", "configmap", "background"); !strings.Contains(out, "not found") {
		t.Errorf("background delete left the object: %s", out)
	}
}
