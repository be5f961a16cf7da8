package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// simWait bounds each kubectl wait of the simulated-nodes test.
const simWait = 2 * time.Minute

// TestSimulatedNodesKubectl: with --simulated-nodes=3, what a user types
// against a cluster finishes as on a real one, with no test code playing
// the kubelet: a Deployment rolls out and becomes Available, a Job
// completes, a DaemonSet runs one Pod per node, a Pod nothing fits stays
// Pending with a FailedScheduling event, and cordon + drain moves a
// Deployment's Pods off a node.
func TestSimulatedNodesKubectl(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"), framework.WithArgs("--simulated-nodes=3"))
	r := kubectlRunner{t, k}
	wait := "--timeout=" + simWait.String()

	r.run("wait", "--for=condition=Ready", "node", "--all", wait)
	nodes := strings.Fields(r.jsonpath("{.items[*].metadata.name}", "get", "nodes"))
	if len(nodes) != 3 {
		t.Fatalf("nodes: %v, want 3", nodes)
	}

	r.run("create", "deployment", "web", "--image=nginx:1.27", "--replicas=3")
	mustHave(t, r.run("rollout", "status", "deployment/web", wait), "successfully rolled out")
	r.run("wait", "--for=condition=Available", "deployment/web", wait)
	if ips := strings.Fields(r.jsonpath("{.items[*].status.podIP}", "get", "pods", "-l", "app=web")); len(ips) != 3 {
		t.Errorf("pod IPs: %v, want 3", ips)
	}

	r.run("create", "job", "once", "--image=busybox:1.37", "--", "true")
	r.run("wait", "--for=condition=Complete", "job/once", wait)

	r.stdin(`apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
      - name: agent
        image: busybox:1.37
`, "apply", "-f", "-")
	r.run("rollout", "status", "daemonset/agent", wait)
	agentNodes := strings.Fields(r.jsonpath("{.items[*].spec.nodeName}", "get", "pods", "-l", "app=agent"))
	if got := uniqueCount(agentNodes); len(agentNodes) != 3 || got != 3 {
		t.Errorf("DaemonSet pods on nodes %v, want one on each of 3", agentNodes)
	}

	r.run("run", "nowhere", "--image=nginx:1.27", `--overrides={"apiVersion":"v1","spec":{"nodeSelector":{"disktype":"none"}}}`)
	cs := k.Clientset()
	eventually(t, "FailedScheduling event for the Pod nothing fits", func(ctx context.Context) (bool, error) {
		evs, err := cs.EventsV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "reason=FailedScheduling,regarding.name=nowhere"})
		return err == nil && len(evs.Items) > 0, err
	})
	if phase := r.jsonpath("{.status.phase}", "get", "pod", "nowhere"); phase != string(corev1.PodPending) {
		t.Errorf("pod nowhere is %s, want Pending", phase)
	}
	mustHave(t, r.run("get", "events", "--field-selector", "reason=FailedScheduling"), "didn't match Pod's node affinity/selector")

	drained := r.jsonpath("{.items[0].spec.nodeName}", "get", "pods", "-l", "app=web")
	r.run("cordon", drained)
	r.run("drain", drained, "--ignore-daemonsets", "--delete-emptydir-data", wait)
	mustHave(t, r.run("rollout", "status", "deployment/web", wait), "successfully rolled out")
	eventually(t, "web pods off the drained node", func(ctx context.Context) (bool, error) {
		pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		running := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName == drained {
				return false, nil
			}
			if p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		return running == 3, nil
	})
}

func uniqueCount(s []string) int {
	seen := map[string]bool{}
	for _, v := range s {
		seen[v] = true
	}
	return len(seen)
}
