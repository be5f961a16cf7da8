package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// TestKubectlDeleteCascade: `kubectl delete --cascade=...` of an owner
// with a dependent, as against kube-apiserver with kube-controller-
// manager's garbage collector (which kapi runs in-process): kubectl
// waits until the owner is gone; orphan leaves the dependent without its
// owner reference, foreground deletes the (blocking) dependent before the
// owner, background deletes it after.
func TestKubectlDeleteCascade(t *testing.T) {
	k := framework.StartKapi(t)
	r := kubectlRunner{t, k}
	r.run("create", "namespace", "cascade")
	for _, cascade := range []string{"orphan", "foreground", "background"} {
		owner, dep := cascade+"-owner", cascade+"-dep"
		r.run("-n", "cascade", "create", "configmap", owner)
		r.run("-n", "cascade", "create", "configmap", dep)
		uid := r.jsonpath("{.metadata.uid}", "-n", "cascade", "get", "configmap", owner)
		r.run("-n", "cascade", "patch", "configmap", dep, "--type=merge", "-p",
			fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":%q,"uid":%q,"blockOwnerDeletion":true}]}}`, owner, uid))
		mustHave(t, r.run("-n", "cascade", "delete", "configmap", owner, "--cascade="+cascade), `configmap "`+owner+`" deleted`)
		if out := r.fails("", "-n", "cascade", "get", "configmap", owner); !strings.Contains(out, "not found") {
			t.Errorf("--cascade=%s left the owner: %s", cascade, out)
		}
		switch cascade {
		case "orphan":
			if refs := r.jsonpath("{.metadata.ownerReferences}", "-n", "cascade", "get", "configmap", dep); refs != "" {
				t.Errorf("orphaned dependent still has owner references %s", refs)
			}
		case "foreground":
			// The owner went only after its blocking dependent.
			if out := r.fails("", "-n", "cascade", "get", "configmap", dep); !strings.Contains(out, "not found") {
				t.Errorf("foreground deletion left the dependent: %s", out)
			}
		case "background":
			r.run("-n", "cascade", "wait", "--for=delete", "configmap/"+dep, "--timeout=60s")
		}
	}
}
