package nodes

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"
)

var t0 = time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)

// newTestSimulator registers n nodes against a fake client with a fake
// clock and returns them once the node informer has them.
func newTestSimulator(t *testing.T, n int) (*Simulator, *fake.Clientset, *testingclock.FakeClock) {
	t.Helper()
	client := fake.NewClientset()
	clk := testingclock.NewFakeClock(t0)
	factory := informers.NewSharedInformerFactory(client, 0)
	s, err := New(client, factory.Core().V1().Nodes(), Config{Count: n, KubeletVersion: "v1.37.2-kapi", Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	if err := s.Register(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { l, _ := s.nodes.List(labels.Everything()); return len(l) == n })
	return s, client, clk
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatal("condition never held")
	}
}

func TestRegister(t *testing.T) {
	_, client, _ := newTestSimulator(t, 4)
	ctx := context.Background()
	for i := range 4 {
		n, err := client.CoreV1().Nodes().Get(ctx, Name(i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if n.Labels[corev1.LabelHostname] != n.Name || n.Labels[corev1.LabelTopologyZone] != Zones[i%3] || n.Labels[corev1.LabelOSStable] != "linux" || !IsSimulated(n) {
			t.Errorf("%s labels = %v", n.Name, n.Labels)
		}
		if want := PodCIDR(i).String(); n.Spec.PodCIDR != want {
			t.Errorf("%s podCIDR = %s, want %s", n.Name, n.Spec.PodCIDR, want)
		}
		var ready *corev1.NodeCondition
		for j := range n.Status.Conditions {
			if n.Status.Conditions[j].Type == corev1.NodeReady {
				ready = &n.Status.Conditions[j]
			}
		}
		if ready == nil || ready.Status != corev1.ConditionTrue || ready.Reason != "KubeletReady" || ready.Message != "kubelet is posting ready status" {
			t.Errorf("%s Ready = %+v", n.Name, ready)
		}
		if q := n.Status.Allocatable[corev1.ResourcePods]; q.Value() != 110 {
			t.Errorf("%s allocatable pods = %s", n.Name, q.String())
		}
		l, err := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, n.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if *l.Spec.HolderIdentity != n.Name || *l.Spec.LeaseDurationSeconds != 40 || !l.Spec.RenewTime.Time.Equal(t0) ||
			len(l.OwnerReferences) != 1 || l.OwnerReferences[0].Kind != "Node" || l.OwnerReferences[0].Name != n.Name {
			t.Errorf("lease %s = %+v %+v", l.Name, l.Spec, l.OwnerReferences)
		}
	}
	if got, want := InternalIP(1).String(), "172.16.0.11"; got != want {
		t.Errorf("InternalIP(1) = %s, want %s", got, want)
	}
	if got, want := PodCIDR(300).String(), "10.65.44.0/24"; got != want {
		t.Errorf("PodCIDR(300) = %s, want %s", got, want)
	}
}

// countWrites counts lease updates and node status writes from now on.
func countWrites(client *fake.Clientset) (leases, heartbeats, statusUpdates *int) {
	leases, heartbeats, statusUpdates = new(int), new(int), new(int)
	client.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		switch {
		case a.GetResource().Resource == "leases" && a.GetVerb() == "update":
			*leases++
		case a.GetResource().Resource == "nodes" && a.GetVerb() == "patch" && a.GetSubresource() == "status":
			*heartbeats++
		case a.GetResource().Resource == "nodes" && a.GetVerb() == "update" && a.GetSubresource() == "status":
			*statusUpdates++
		}
		return false, nil, nil
	})
	return
}

// TestLeaseSchedule: each lease is renewed every 10s (a quarter of its 40s
// duration), the renewals of nodes registered together spread over the
// interval; an unchanged status is posted every 5 minutes only.
func TestLeaseSchedule(t *testing.T) {
	s, client, clk := newTestSimulator(t, 3)
	leases, heartbeats, updates := countWrites(client)
	ctx := context.Background()
	due, _ := s.NextDue()
	if want := t0.Add(RenewInterval); !due.Equal(want) {
		t.Fatalf("first renewal at %v, want %v", due, want)
	}
	// Walk 5 minutes in 1s steps.
	for range 300 {
		clk.Step(time.Second)
		s.RunDue(ctx)
	}
	// 3 nodes, renewed at 10s, 20s, ... 300s (node 0), offset by 3.3s and 6.7s (nodes 1, 2).
	if *leases != 30+29+29 {
		t.Errorf("lease renewals in 5m = %d, want %d", *leases, 30+29+29)
	}
	if *heartbeats != 1 || *updates != 0 {
		t.Errorf("heartbeats = %d, status updates = %d; want 1 (node 0 at 5m) and 0", *heartbeats, *updates)
	}
	l, _ := client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, Name(0), metav1.GetOptions{})
	if want := t0.Add(300 * time.Second); !l.Spec.RenewTime.Time.Equal(want) {
		t.Errorf("renewTime = %v, want %v", l.Spec.RenewTime.Time, want)
	}
	n, _ := client.CoreV1().Nodes().Get(ctx, Name(0), metav1.GetOptions{})
	for _, c := range n.Status.Conditions {
		if !c.LastHeartbeatTime.Time.Equal(t0.Add(300*time.Second)) || !c.LastTransitionTime.Time.Equal(t0) {
			t.Errorf("condition %s heartbeat %v transition %v", c.Type, c.LastHeartbeatTime, c.LastTransitionTime)
		}
	}
}

// TestStatusDrift: a status changed by someone else is put back at the
// next 10s round, keeping unchanged conditions' transition times.
func TestStatusDrift(t *testing.T) {
	s, client, clk := newTestSimulator(t, 1)
	ctx := context.Background()
	n, _ := client.CoreV1().Nodes().Get(ctx, Name(0), metav1.GetOptions{})
	n.Status.Conditions[3].Status = corev1.ConditionFalse
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		cur, _ := s.nodes.Get(Name(0))
		return cur.Status.Conditions[3].Status == corev1.ConditionFalse
	})
	_, _, updates := countWrites(client)
	clk.Step(RenewInterval)
	s.RunDue(ctx)
	if *updates != 1 {
		t.Fatalf("status updates = %d, want 1", *updates)
	}
	n, _ = client.CoreV1().Nodes().Get(ctx, Name(0), metav1.GetOptions{})
	ready := n.Status.Conditions[3]
	if ready.Status != corev1.ConditionTrue || !ready.LastTransitionTime.Time.Equal(t0.Add(RenewInterval)) || !n.Status.Conditions[0].LastTransitionTime.Time.Equal(t0) {
		t.Errorf("conditions after drift = %+v", n.Status.Conditions)
	}
}

// TestDeletedNodeStops: a deleted node's kubelet stops renewing.
func TestDeletedNodeStops(t *testing.T) {
	s, client, clk := newTestSimulator(t, 1)
	ctx := context.Background()
	if err := client.CoreV1().Nodes().Delete(ctx, Name(0), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, err := s.nodes.Get(Name(0)); return err != nil })
	clk.Step(RenewInterval)
	if _, ok := s.RunDue(ctx); ok {
		t.Error("a deleted node is still scheduled")
	}
	var l *coordinationv1.Lease
	l, _ = client.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, Name(0), metav1.GetOptions{})
	if l != nil && !l.Spec.RenewTime.Time.Equal(t0) {
		t.Errorf("lease renewed after node deletion: %v", l.Spec.RenewTime)
	}
}
