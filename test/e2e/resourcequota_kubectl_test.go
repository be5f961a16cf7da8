package e2e

import (
	"context"
	"testing"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// TestResourceQuotaKubectl: what a user types. A quota of configmaps: 2
// gets its status from kapi's own quota controller, counting the
// namespace's kube-root-ca.crt as upstream does, the ConfigMap past the
// limit is refused with upstream's text, and `kubectl get quota` shows
// the use.
func TestResourceQuotaKubectl(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}
	r.run("create", "namespace", "team")
	r.run("-n", "team", "create", "quota", "q", "--hard=configmaps=2")
	eventually(t, "quota status", func(context.Context) (bool, error) {
		return r.jsonpath("{.status.used.configmaps}", "-n", "team", "get", "quota", "q") == "1", nil
	})
	r.run("-n", "team", "create", "configmap", "a")
	mustHave(t, r.fails("", "-n", "team", "create", "configmap", "b"),
		`configmaps "b" is forbidden: exceeded quota: q, requested: configmaps=1, used: configmaps=2, limited: configmaps=2`)
	if got := r.jsonpath("{.status.used.configmaps}/{.status.hard.configmaps}", "-n", "team", "get", "quota", "q"); got != "2/2" {
		t.Errorf("quota used/hard = %q, want 2/2", got)
	}
	r.run("-n", "team", "delete", "configmap", "a")
	eventually(t, "quota given back", func(context.Context) (bool, error) {
		return r.jsonpath("{.status.used.configmaps}", "-n", "team", "get", "quota", "q") == "1", nil
	})
	r.run("-n", "team", "create", "configmap", "c")
}
