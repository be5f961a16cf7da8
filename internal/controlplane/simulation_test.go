package controlplane

import (
	"context"
	"net/netip"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/simulator/nodes"
	"github.com/kapi-dev/kapi/internal/simulator/pods"
)

// waitPod polls the Pod until ok holds for it (or it is gone, ok(nil)).
func waitPod(t *testing.T, cs kubernetes.Interface, name string, ok func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods("bench").Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			last = nil
			return ok(nil), nil
		}
		if err != nil {
			return false, err
		}
		last = p
		return ok(p), nil
	})
	if err != nil {
		t.Fatalf("pod %s: %v; last seen %+v", name, err, last)
	}
	return last
}

func podReady(p *corev1.Pod) bool {
	if p == nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func simPod(name, node string, restart corev1.RestartPolicy, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
		Spec: corev1.PodSpec{NodeName: node, RestartPolicy: restart,
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox"}},
			Containers:     []corev1.Container{{Name: "app", Image: "nginx"}}},
	}
}

// TestSimulatedNodes runs a server with --simulated-nodes=3: the nodes are
// Ready and schedulable when the server is ready, Pods bound to them run,
// a restartPolicy Never Pod succeeds, graceful deletion completes and a
// cordon taints the node.
func TestSimulatedNodes(t *testing.T) {
	s := startServer(t, "memory", func(c *Config) { c.SimulatedNodes = 3 })
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: nodes.SimulatedLabel + "=true"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 3 {
		t.Fatalf("%d simulated nodes, want 3", len(list.Items))
	}
	for _, n := range list.Items {
		if len(n.Spec.Taints) != 0 {
			t.Errorf("node %s taints = %v, want none once Ready", n.Name, n.Spec.Taints)
		}
		if _, err := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, n.Name, metav1.GetOptions{}); err != nil {
			t.Errorf("lease of %s: %v", n.Name, err)
		}
	}

	t.Run("running", func(t *testing.T) {
		if _, err := cs.CoreV1().Pods("bench").Create(ctx, simPod("web", nodes.Name(1), corev1.RestartPolicyAlways, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		p := waitPod(t, cs, "web", podReady)
		if ip, err := netip.ParseAddr(p.Status.PodIP); err != nil || !nodes.PodCIDR(1).Contains(ip) {
			t.Errorf("podIP %q not in %s", p.Status.PodIP, nodes.PodCIDR(1))
		}
		if p.Status.HostIP != nodes.InternalIP(1).String() || p.Status.StartTime == nil {
			t.Errorf("hostIP %q startTime %v", p.Status.HostIP, p.Status.StartTime)
		}
	})
	t.Run("endpointslice", func(t *testing.T) {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80}}}}
		if _, err := cs.CoreV1().Services("bench").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		pod := simPod("web-ep", nodes.Name(0), corev1.RestartPolicyAlways, nil)
		pod.Labels = map[string]string{"app": "web"}
		if _, err := cs.CoreV1().Pods("bench").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		p := waitPod(t, cs, "web-ep", podReady)
		err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			slices, err := cs.DiscoveryV1().EndpointSlices("bench").List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=web"})
			if err != nil {
				return false, err
			}
			for _, s := range slices.Items {
				for _, e := range s.Endpoints {
					if len(e.Addresses) == 1 && e.Addresses[0] == p.Status.PodIP && e.Conditions.Ready != nil && *e.Conditions.Ready &&
						e.NodeName != nil && *e.NodeName == nodes.Name(0) && e.Zone != nil && *e.Zone == nodes.Zones[0] {
						return true, nil
					}
				}
			}
			return false, nil
		})
		if err != nil {
			t.Fatalf("no ready endpoint for %s: %v", p.Status.PodIP, err)
		}
	})
	t.Run("binding", func(t *testing.T) {
		// Another scheduler's Pod: the built-in scheduler leaves it alone,
		// so the binding below is the only one.
		pod := simPod("bound", "", corev1.RestartPolicyAlways, nil)
		pod.Spec.SchedulerName = "test-scheduler"
		if _, err := cs.CoreV1().Pods("bench").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		err := cs.CoreV1().Pods("bench").Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "bound"}, Target: corev1.ObjectReference{Kind: "Node", Name: nodes.Name(2)}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		waitPod(t, cs, "bound", podReady)
	})
	t.Run("job-like pod succeeds", func(t *testing.T) {
		pod := simPod("once", nodes.Name(0), corev1.RestartPolicyNever, map[string]string{pods.RunTimeAnnotation: "100ms"})
		if _, err := cs.CoreV1().Pods("bench").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		p := waitPod(t, cs, "once", func(p *corev1.Pod) bool { return p != nil && p.Status.Phase == corev1.PodSucceeded })
		term := p.Status.ContainerStatuses[0].State.Terminated
		if term == nil || term.ExitCode != 0 || term.Reason != "Completed" {
			t.Errorf("container state = %+v", p.Status.ContainerStatuses[0].State)
		}
	})
	t.Run("failing pod fails", func(t *testing.T) {
		pod := simPod("crash", nodes.Name(0), corev1.RestartPolicyNever, map[string]string{pods.RunTimeAnnotation: "0s", pods.ExitCodeAnnotation: "3"})
		if _, err := cs.CoreV1().Pods("bench").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		p := waitPod(t, cs, "crash", func(p *corev1.Pod) bool { return p != nil && p.Status.Phase == corev1.PodFailed })
		if term := p.Status.ContainerStatuses[0].State.Terminated; term == nil || term.ExitCode != 3 || term.Reason != "Error" {
			t.Errorf("container state = %+v", p.Status.ContainerStatuses[0].State)
		}
	})
	t.Run("graceful deletion completes", func(t *testing.T) {
		if _, err := cs.CoreV1().Pods("bench").Create(ctx, simPod("doomed", nodes.Name(2), corev1.RestartPolicyAlways, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitPod(t, cs, "doomed", podReady)
		if err := cs.CoreV1().Pods("bench").Delete(ctx, "doomed", metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(30))}); err != nil {
			t.Fatal(err)
		}
		waitPod(t, cs, "doomed", func(p *corev1.Pod) bool { return p == nil })
	})
	t.Run("cordon", func(t *testing.T) {
		n, err := cs.CoreV1().Nodes().Get(ctx, nodes.Name(0), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n.Spec.Unschedulable = true
		if _, err := cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			n, err := cs.CoreV1().Nodes().Get(ctx, nodes.Name(0), metav1.GetOptions{})
			return err == nil && len(n.Spec.Taints) == 1 && n.Spec.Taints[0].Key == corev1.TaintNodeUnschedulable && n.Spec.Taints[0].Effect == corev1.TaintEffectNoSchedule, err
		})
		if err != nil {
			t.Fatalf("no unschedulable taint after cordon: %v", err)
		}
	})
}
