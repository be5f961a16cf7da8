package controlplane

import (
	"context"
	"log/slog"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
)

// TestSchedulerThroughTheServer: startScheduler binds pods to Ready
// nodes and spreads them; a pod with an impossible node selector stays
// Pending with PodScheduled False and an events.k8s.io/v1
// FailedScheduling event from default-scheduler in upstream's words,
// until a matching node appears; a cordoned node gets no new pods.
func TestSchedulerThroughTheServer(t *testing.T) {
	var restCfg *rest.Config
	s := startConfiguredServer(t, "scheduler", func(c *Config) {
		c.Controllers = []string{}
		// Nodes made by hand are Ready at once: no not-ready taint.
		c.Security.DisableAdmissionPlugins = []string{"ServiceAccount", "TaintNodesByCondition"}
		ready := c.Ready
		c.Ready = func(rc *rest.Config) { restCfg = rc; ready(rc) }
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, name := range []string{"n1", "n2", "n3"} {
		createReadyNode(t, s.client, name, nil)
	}
	startTestScheduler(t, ctx, restCfg)
	pods := s.client.CoreV1().Pods("default")
	for _, name := range []string{"p1", "p2", "p3", "p4", "p5", "p6"} {
		createSchedPod(t, pods, name, nil)
	}
	perNode := map[string]int{}
	poll(t, "six pods bound", func(ctx context.Context) (bool, error) {
		clear(perNode)
		list, err := pods.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range list.Items {
			if p.Spec.NodeName != "" && podScheduled(&p) == corev1.ConditionTrue {
				perNode[p.Spec.NodeName]++
			}
		}
		return len(list.Items) == 6 && perNode["n1"]+perNode["n2"]+perNode["n3"] == 6, nil
	})
	if perNode["n1"] != 2 || perNode["n2"] != 2 || perNode["n3"] != 2 {
		t.Fatalf("pods per node %v, want 2 each", perNode)
	}

	createSchedPod(t, pods, "ssd", map[string]string{"disk": "ssd"})
	const msg = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
	poll(t, "FailedScheduling event and PodScheduled False", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, "ssd", metav1.GetOptions{})
		if err != nil || p.Spec.NodeName != "" {
			return false, err
		}
		cond := scheduledCondition(p)
		if cond == nil || cond.Status != corev1.ConditionFalse || cond.Reason != corev1.PodReasonUnschedulable || cond.Message != msg {
			return false, nil
		}
		evs, err := s.client.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Regarding.Name == "ssd" && e.Reason == "FailedScheduling" && e.Type == corev1.EventTypeWarning &&
				e.ReportingController == "default-scheduler" && e.Action == "Scheduling" && e.Note == msg {
				return true, nil
			}
		}
		return false, nil
	})

	if _, err := s.client.CoreV1().Nodes().Patch(ctx, "n1", types.MergePatchType, []byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"q1", "q2", "q3"} {
		createSchedPod(t, pods, name, nil)
	}
	poll(t, "the new pods bound elsewhere than the cordoned n1", func(ctx context.Context) (bool, error) {
		for _, name := range []string{"q1", "q2", "q3"} {
			p, err := pods.Get(ctx, name, metav1.GetOptions{})
			if err != nil || p.Spec.NodeName == "" {
				return false, err
			}
			if p.Spec.NodeName == "n1" {
				t.Fatalf("%s bound to the cordoned node", name)
			}
		}
		return true, nil
	})

	createReadyNode(t, s.client, "n4", map[string]string{"disk": "ssd"})
	poll(t, "the pending pod bound to the new matching node", func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, "ssd", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == "n4" && podScheduled(p) == corev1.ConditionTrue, err
	})
}

// startTestScheduler runs startScheduler as the simulated-nodes hook
// will, on its own informers and event broadcaster.
func startTestScheduler(t *testing.T, ctx context.Context, restCfg *rest.Config) {
	t.Helper()
	si, err := newSharedInformers(restCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	recorders := &eventRecorders{}
	if err := recorders.init(ctx, restCfg); err != nil {
		t.Fatal(err)
	}
	cc := &controllerContext{config: &Config{}, loopback: restCfg, informers: si, logger: slog.New(slog.DiscardHandler),
		events: recorders, clock: clock.RealClock{}, serverCtx: ctx}
	if err := startScheduler(ctx, cc); err != nil {
		t.Fatal(err)
	}
}

func createReadyNode(t *testing.T, cs kubernetes.Interface, name string, labels map[string]string) {
	t.Helper()
	l := map[string]string{corev1.LabelHostname: name}
	for k, v := range labels {
		l[k] = v
	}
	ctx := context.Background()
	n, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status = corev1.NodeStatus{
		Capacity:    corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")},
		Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
	}
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func createSchedPod(t *testing.T, pods interface {
	Create(context.Context, *corev1.Pod, metav1.CreateOptions) (*corev1.Pod, error)
}, name string, selector map[string]string) {
	t.Helper()
	_, err := pods.Create(context.Background(), &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{NodeSelector: selector, Containers: []corev1.Container{{Name: "c", Image: "busybox",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

func scheduledCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func podScheduled(p *corev1.Pod) corev1.ConditionStatus {
	if c := scheduledCondition(p); c != nil {
		return c.Status
	}
	return ""
}
