package nodes

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestParseTemplate(t *testing.T) {
	tmpl, err := ParseTemplate([]byte(`
apiVersion: v1
kind: Node
metadata:
  labels: {node.kubernetes.io/instance-type: m5.large}
spec:
  taints: [{key: dedicated, value: infra, effect: NoSchedule}]
status:
  capacity: {cpu: "4", memory: 16Gi}
  allocatable: {cpu: 3900m}
`))
	if err != nil {
		t.Fatal(err)
	}
	if got := tmpl.Status.Allocatable[corev1.ResourceCPU]; got.String() != "3900m" {
		t.Errorf("allocatable cpu = %s", got.String())
	}
	if got := tmpl.Status.Allocatable[corev1.ResourceMemory]; got.String() != "16Gi" {
		t.Errorf("allocatable memory = %s (defaults to capacity)", got.String())
	}
	if got := tmpl.Status.Capacity[corev1.ResourcePods]; got.String() != "110" {
		t.Errorf("capacity pods = %s (the default)", got.String())
	}
	n := Build(0, tmpl, "v1", t0)
	if n.Labels["node.kubernetes.io/instance-type"] != "m5.large" || len(n.Spec.Taints) != 1 {
		t.Errorf("built node = %v %v", n.Labels, n.Spec.Taints)
	}

	for _, tc := range []struct{ name, doc, want string }{
		{"name", `{"metadata":{"name":"x"}}`, "metadata.name"},
		{"other spec", `{"spec":{"unschedulable":true}}`, "only taints"},
		{"other status", `{"status":{"nodeInfo":{"osImage":"x"}}}`, "only capacity and allocatable"},
		{"allocatable beyond capacity", `{"status":{"capacity":{"cpu":"2"},"allocatable":{"cpu":"3"}}}`, "exceeds its capacity"},
		{"unknown field", `{"spec":{"taintz":[]}}`, "unknown field"},
		{"kind", `{"kind":"Pod"}`, "want a v1 Node"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTemplate([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
