package e2e

import (
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// serviceManifest is a Service of the given type for kubectl apply.
func serviceManifest(name, svcType string) string {
	return `apiVersion: v1
kind: Service
metadata:
  name: ` + name + `
spec:
  type: ` + svcType + `
  selector: {app: web}
  ports:
  - name: http
    port: 80
    targetPort: 8080
`
}

// TestKubectlServerSideApplyService: kubectl apply --server-side creates
// Services as a POST does: a cluster IP from the range with its IPAddress,
// clusterIPs, ipFamilies, ipFamilyPolicy and, for a NodePort service, a
// node port (issue 15, defect 5).
func TestKubectlServerSideApplyService(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"),
		framework.WithArgs("--service-cluster-ip-range=10.96.0.0/24", "--service-node-port-range=31000-31099"))
	r := kubectlRunner{t, k}
	cases := []struct{ name, svcType string }{
		{"ssa-clusterip", "ClusterIP"},
		{"ssa-nodeport", "NodePort"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mustHave(t, r.stdin(serviceManifest(tc.name, tc.svcType), "apply", "--server-side", "--field-manager=e2e", "-f", "-"),
				"service/"+tc.name+" serverside-applied")
			got := strings.Fields(r.jsonpath("{.spec.clusterIP} {.spec.clusterIPs[*]} {.spec.ipFamilies[*]} {.spec.ipFamilyPolicy} {.spec.ports[0].nodePort}",
				"get", "service", tc.name))
			if len(got) < 4 {
				t.Fatalf("service %s has no cluster IP fields: %q", tc.name, got)
			}
			ip, err := netip.ParseAddr(got[0])
			if err != nil || !netip.MustParsePrefix("10.96.0.0/24").Contains(ip) {
				t.Errorf("clusterIP %q is not in 10.96.0.0/24", got[0])
			}
			if got[1] != got[0] || got[2] != "IPv4" || got[3] != "SingleStack" {
				t.Errorf("clusterIPs ipFamilies ipFamilyPolicy = %q, want %s IPv4 SingleStack", got[1:4], got[0])
			}
			parent := r.jsonpath("{.spec.parentRef.resource}/{.spec.parentRef.namespace}/{.spec.parentRef.name}", "get", "ipaddresses.networking.k8s.io", got[0])
			if parent != "services/default/"+tc.name {
				t.Errorf("IPAddress %s parentRef = %q, want services/default/%s", got[0], parent, tc.name)
			}
			wantNodePort := tc.svcType == "NodePort"
			if hasNodePort := len(got) == 5; hasNodePort != wantNodePort {
				t.Fatalf("nodePort present = %v, want %v: %q", hasNodePort, wantNodePort, got)
			}
			if port, _ := strconv.Atoi(got[len(got)-1]); wantNodePort && (port < 31000 || port > 31099) {
				t.Errorf("nodePort %s outside 31000-31099", got[4])
			}
		})
	}
	// Applying again changes nothing that was allocated.
	before := r.jsonpath("{.spec.clusterIP} {.spec.ports[0].nodePort}", "get", "service", "ssa-nodeport")
	r.stdin(serviceManifest("ssa-nodeport", "NodePort"), "apply", "--server-side", "--field-manager=e2e", "-f", "-")
	if after := r.jsonpath("{.spec.clusterIP} {.spec.ports[0].nodePort}", "get", "service", "ssa-nodeport"); after != before {
		t.Errorf("a second apply changed the allocations: %q, then %q", before, after)
	}
}
