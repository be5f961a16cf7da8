package scheduler

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Each default score plugin moves the choice the way upstream's does;
// ties go to the first node by name in deterministic mode.
func TestScoresPickTheNode(t *testing.T) {
	preferZone := func(zone string, w int32) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
				Weight: w, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}},
			}}}}
		}
	}
	preferWith := func(anti bool, kv ...string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			terms := []corev1.WeightedPodAffinityTerm{{Weight: 100, PodAffinityTerm: podAffinityTerm(corev1.LabelHostname, kv...)}}
			if anti {
				p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: terms}}
			} else {
				p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: terms}}
			}
		}
	}
	web := func(name, node string) *corev1.Pod { return testPod(name, onNode(node), podLabels("app", "web")) }
	cases := []struct {
		name  string
		nodes []*corev1.Node
		bound []*corev1.Pod
		pod   *corev1.Pod
		want  string
	}{
		{name: "tie by name", nodes: []*corev1.Node{testNode("b"), testNode("a")}, pod: testPod("p"), want: "a"},
		{name: "least allocated", nodes: []*corev1.Node{testNode("a"), testNode("b")}, bound: []*corev1.Pod{testPod("x", onNode("a"), requests("2", "2Gi"))}, pod: testPod("p"), want: "b"},
		{name: "PreferNoSchedule avoided", nodes: []*corev1.Node{testNode("a", nodeTaint("k", "v", corev1.TaintEffectPreferNoSchedule)), testNode("b")}, pod: testPod("p"), want: "b"},
		{name: "preferred node affinity", nodes: []*corev1.Node{testNode("a", nodeLabels("zone", "z1")), testNode("b", nodeLabels("zone", "z2"))}, pod: testPod("p", preferZone("z2", 10)), want: "b"},
		{name: "preferred pod affinity", nodes: []*corev1.Node{testNode("a"), testNode("b")}, bound: []*corev1.Pod{web("w", "b")}, pod: testPod("p", preferWith(false, "app", "web")), want: "b"},
		{name: "preferred pod anti-affinity", nodes: []*corev1.Node{testNode("a"), testNode("b")}, bound: []*corev1.Pod{web("w", "a")}, pod: testPod("p", preferWith(true, "app", "web")), want: "b"},
		{name: "ScheduleAnyway spread", nodes: []*corev1.Node{testNode("a"), testNode("b")}, bound: []*corev1.Pod{web("w1", "a"), web("w2", "a")},
			pod: testPod("p", podLabels("app", "web"), spread(corev1.LabelHostname, 1, corev1.ScheduleAnyway, "app", "web")), want: "b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testScheduler(t, tc.nodes, tc.bound)
			host, _, err := s.schedule(podKey(tc.pod), tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			if host != tc.want {
				t.Fatalf("scheduled on %s, want %s", host, tc.want)
			}
		})
	}
}

// Upstream's adaptive share of nodes examined before scoring.
func TestNumFeasibleNodesToFind(t *testing.T) {
	for _, tc := range []struct{ all, want int }{{10, 10}, {99, 99}, {100, 100}, {1000, 420}, {5000, 500}, {6000, 300}} {
		if got := numFeasibleNodesToFind(tc.all); got != tc.want {
			t.Errorf("numFeasibleNodesToFind(%d) = %d, want %d", tc.all, got, tc.want)
		}
	}
}

// LeastAllocated and BalancedAllocation on upstream's formulas: free
// share of cpu and memory averaged; one minus half the fractions' gap.
func TestResourceScores(t *testing.T) {
	cases := []struct {
		name            string
		bound           *corev1.Pod
		pod             *corev1.Pod
		least, balanced int64
	}{
		{name: "empty node, request-less pod", pod: testPod("p", requests("", "")), least: 97, balanced: 100},
		{name: "half used", bound: testPod("x", onNode("n"), requests("1", "2Gi")), pod: testPod("p", requests("1", "2Gi")), least: 50, balanced: 100},
		{name: "unbalanced", bound: testPod("x", onNode("n"), requests("3", "")), pod: testPod("p", requests("1", "")), least: 47, balanced: 50},
		{name: "over capacity scores zero", bound: testPod("x", onNode("n"), requests("4", "8Gi")), pod: testPod("p", requests("1", "1Gi")), least: 0, balanced: 100},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var bound []*corev1.Pod
			if tc.bound != nil {
				bound = append(bound, tc.bound)
			}
			s := testScheduler(t, []*corev1.Node{testNode("n")}, bound)
			n, pi := s.cache.nodes["n"], newPodInfo(tc.pod)
			if got := leastAllocated(pi, n); got != tc.least {
				t.Errorf("leastAllocated = %d, want %d", got, tc.least)
			}
			if got := balancedAllocation(pi, n); got != tc.balanced {
				t.Errorf("balancedAllocation = %d, want %d", got, tc.balanced)
			}
		})
	}
}

// Upstream's system default spreading: a ReplicaSet's pod without
// constraints of its own is spread over hostnames (maxSkew 3) even when
// LeastAllocated alone would stack it with its siblings.
func TestDefaultSpreading(t *testing.T) {
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	owned := func(p *corev1.Pod) {
		p.Labels = map[string]string{"app": "web"}
		p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}
	}
	nodes := []*corev1.Node{testNode("a"), testNode("b")}
	bound := []*corev1.Pod{
		testPod("w1", onNode("a"), owned), testPod("w2", onNode("a"), owned), testPod("w3", onNode("a"), owned),
		testPod("big", onNode("b"), requests("1", "2Gi")),
	}
	incoming := testPod("p", owned, requests("100m", "128Mi"))
	for _, tc := range []struct {
		name     string
		defaults bool
		want     string
	}{{"without defaults", false, "a"}, {"with defaults", true, "b"}} {
		t.Run(tc.name, func(t *testing.T) {
			s := testScheduler(t, nodes, bound)
			if tc.defaults {
				idx := func(objs ...any) cache.Indexer {
					i := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
					for _, o := range objs {
						_ = i.Add(o)
					}
					return i
				}
				s.owners = &ownerListers{services: corelisters.NewServiceLister(idx()), rcs: corelisters.NewReplicationControllerLister(idx()),
					replicaSets: appslisters.NewReplicaSetLister(idx(rs)), statefulSets: appslisters.NewStatefulSetLister(idx())}
			}
			host, _, err := s.schedule(podKey(incoming), incoming)
			if err != nil {
				t.Fatal(err)
			}
			if host != tc.want {
				t.Fatalf("scheduled on %s, want %s", host, tc.want)
			}
		})
	}
}
