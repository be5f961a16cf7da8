package e2e

import (
	"testing"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// restrictedViolations is what upstream's PodSecurity lists for the pod
// `kubectl run p --image=nginx` makes against restricted:latest, in
// upstream's order and wording.
const restrictedViolations = `allowPrivilegeEscalation != false (container "p" must set securityContext.allowPrivilegeEscalation=false), ` +
	`unrestricted capabilities (container "p" must set securityContext.capabilities.drop=["ALL"]), ` +
	`runAsNonRoot != true (pod or container "p" must set securityContext.runAsNonRoot=true), ` +
	`seccompProfile (pod or container "p" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`

// TestPodSecurityKubectl: what a user sees from the PodSecurity plugin.
// A namespace labelled enforce=restricted refuses a plain pod with
// upstream's exact message; one labelled warn=restricted admits it and
// kubectl prints upstream's warning.
func TestPodSecurityKubectl(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}

	r.run("create", "namespace", "locked")
	r.run("label", "ns", "locked", "pod-security.kubernetes.io/enforce=restricted")
	out := r.fails("", "-n", "locked", "run", "p", "--image=nginx", "--restart=Never")
	mustHave(t, out, `Error from server (Forbidden): pods "p" is forbidden: violates PodSecurity "restricted:latest": `+restrictedViolations)
	if got := r.run("-n", "locked", "get", "pods", "-o", "name"); got != "" {
		t.Errorf("refused pod was stored: %q", got)
	}

	r.run("create", "namespace", "loose")
	r.run("label", "ns", "loose", "pod-security.kubernetes.io/warn=restricted")
	out = r.stdin("", "-n", "loose", "run", "p", "--image=nginx", "--restart=Never")
	mustHave(t, out, `Warning: would violate PodSecurity "restricted:latest": `+restrictedViolations, "pod/p created")
	r.run("-n", "loose", "get", "pod", "p")
}
