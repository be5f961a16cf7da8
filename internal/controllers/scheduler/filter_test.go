package scheduler

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

type filterCase struct {
	name     string
	node     *corev1.Node
	existing []*corev1.Pod
	pod      *corev1.Pod
	want     []string
	wantCode code
}

func runFilterCases(t *testing.T, cases []filterCase, extra ...*corev1.Node) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testScheduler(t, append([]*corev1.Node{tc.node}, extra...), tc.existing)
			got := s.filterOn(t, tc.pod, tc.node.Name)
			if !reflect.DeepEqual(reasonsOf(got), tc.want) {
				t.Fatalf("reasons = %q, want %q", reasonsOf(got), tc.want)
			}
			if got != nil && tc.wantCode != 0 && got.code != tc.wantCode {
				t.Fatalf("code = %d, want %d", got.code, tc.wantCode)
			}
		})
	}
}

// NodeUnschedulable, TaintToleration and NodeAffinity reject as
// unresolvable, with upstream's reasons.
func TestFilterNodeLevel(t *testing.T) {
	runFilterCases(t, []filterCase{
		{name: "cordoned", node: testNode("n", cordoned), pod: testPod("p"), want: []string{reasonUnschedulable}, wantCode: unresolvable},
		{name: "cordoned, tolerated", node: testNode("n", cordoned), pod: testPod("p", toleration(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule))},
		{name: "NoSchedule taint", node: testNode("n", nodeTaint("k", "v", corev1.TaintEffectNoSchedule)), pod: testPod("p"), want: []string{reasonTaints}, wantCode: unresolvable},
		{name: "NoExecute taint", node: testNode("n", nodeTaint("k", "", corev1.TaintEffectNoExecute)), pod: testPod("p"), want: []string{reasonTaints}},
		{name: "PreferNoSchedule is only scored", node: testNode("n", nodeTaint("k", "v", corev1.TaintEffectPreferNoSchedule)), pod: testPod("p")},
		{name: "taint tolerated", node: testNode("n", nodeTaint("k", "v", corev1.TaintEffectNoSchedule)), pod: testPod("p", toleration("k", ""))},
		{name: "node selector matches", node: testNode("n", nodeLabels("disk", "ssd")), pod: testPod("p", nodeSelector("disk", "ssd"))},
		{name: "node selector does not match", node: testNode("n"), pod: testPod("p", nodeSelector("disk", "ssd")), want: []string{reasonNodeAffinity}, wantCode: unresolvable},
		{name: "required node affinity", node: testNode("n", nodeLabels("zone", "a")), pod: testPod("p", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a"}}}}},
			}}}
		}), want: []string{reasonNodeAffinity}},
		// Filters run in upstream's order: the cordon is reported first.
		{name: "first failing filter wins", node: testNode("n", cordoned, nodeTaint("k", "v", corev1.TaintEffectNoSchedule)), pod: testPod("p", nodeSelector("x", "y")), want: []string{reasonUnschedulable}},
	})
}

// NodePorts: a host port clashes on the same IP and protocol, 0.0.0.0
// clashing with any IP.
func TestFilterPorts(t *testing.T) {
	bound := func(ip string, proto corev1.Protocol) []*corev1.Pod {
		return []*corev1.Pod{testPod("old", onNode("n"), hostPortOn(ip, proto, 8080))}
	}
	runFilterCases(t, []filterCase{
		{name: "free", node: testNode("n"), pod: testPod("p", hostPortOn("", "", 8080))},
		{name: "taken", node: testNode("n"), existing: bound("", corev1.ProtocolTCP), pod: testPod("p", hostPortOn("", "", 8080)), want: []string{reasonPorts}, wantCode: unschedulable},
		{name: "other protocol", node: testNode("n"), existing: bound("", corev1.ProtocolUDP), pod: testPod("p", hostPortOn("", "", 8080))},
		{name: "wildcard against an IP", node: testNode("n"), existing: bound("10.0.0.1", corev1.ProtocolTCP), pod: testPod("p", hostPortOn("", "", 8080)), want: []string{reasonPorts}},
		{name: "IP against wildcard", node: testNode("n"), existing: bound("", corev1.ProtocolTCP), pod: testPod("p", hostPortOn("10.0.0.2", "", 8080)), want: []string{reasonPorts}},
		{name: "two IPs", node: testNode("n"), existing: bound("10.0.0.1", corev1.ProtocolTCP), pod: testPod("p", hostPortOn("10.0.0.2", "", 8080))},
	})
}

// NodeResourcesFit: allocatable minus bound requests; init containers
// count by their maximum, overhead is added, each shortage is a reason.
func TestFilterFit(t *testing.T) {
	withInit := func(cpu string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
			requestsOn(&p.Spec.InitContainers[0], cpu, "")
		}
	}
	overhead := func(cpu string) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: mustQ(cpu)} }
	}
	gpu := func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{"example.com/gpu": mustQ("1")}
	}
	runFilterCases(t, []filterCase{
		{name: "fits", node: testNode("n"), pod: testPod("p", requests("4", "8Gi"))},
		{name: "cpu", node: testNode("n"), existing: []*corev1.Pod{testPod("old", onNode("n"), requests("3", ""))}, pod: testPod("p", requests("2", "")), want: []string{"Insufficient cpu"}, wantCode: unschedulable},
		{name: "cpu and memory", node: testNode("n"), pod: testPod("p", requests("5", "9Gi")), want: []string{"Insufficient cpu", "Insufficient memory"}},
		{name: "init container max", node: testNode("n"), pod: testPod("p", requests("1", ""), withInit("5")), want: []string{"Insufficient cpu"}},
		{name: "overhead", node: testNode("n"), pod: testPod("p", requests("4", ""), overhead("100m")), want: []string{"Insufficient cpu"}},
		{name: "too many pods", node: testNode("n", allocatable(corev1.ResourcePods, "1")), existing: []*corev1.Pod{testPod("old", onNode("n"))}, pod: testPod("p"), want: []string{reasonTooManyPods}},
		{name: "extended resource missing", node: testNode("n"), pod: testPod("p", gpu), want: []string{"Insufficient example.com/gpu"}},
		{name: "extended resource present", node: testNode("n", allocatable("example.com/gpu", "2")), pod: testPod("p", gpu)},
		{name: "terminal pods free their share", node: testNode("n"), existing: nil, pod: testPod("p", requests("4", ""))},
	})
}

// InterPodAffinity: required affinity (with the first-pod exception),
// the pod's anti-affinity, existing pods' anti-affinity.
func TestFilterInterPod(t *testing.T) {
	zoneA := testNode("a", nodeLabels("zone", "z1"))
	zoneB := testNode("b", nodeLabels("zone", "z2"))
	db := testPod("db", onNode("b"), podLabels("app", "db"))
	runFilterCases(t, []filterCase{
		{name: "affinity satisfied", node: zoneB, existing: []*corev1.Pod{db}, pod: testPod("p", requiredAffinity(podAffinityTerm("zone", "app", "db")))},
		{name: "affinity elsewhere", node: zoneA, existing: []*corev1.Pod{db}, pod: testPod("p", requiredAffinity(podAffinityTerm("zone", "app", "db"))), want: []string{reasonPodAffinity}, wantCode: unresolvable},
		{name: "first of its group", node: zoneA, pod: testPod("p", podLabels("app", "web"), requiredAffinity(podAffinityTerm("zone", "app", "web")))},
		{name: "no match and not self", node: zoneA, pod: testPod("p", requiredAffinity(podAffinityTerm("zone", "app", "web"))), want: []string{reasonPodAffinity}},
		{name: "node without the key", node: testNode("c"), existing: []*corev1.Pod{db}, pod: testPod("p", requiredAffinity(podAffinityTerm("zone", "app", "db"))), want: []string{reasonPodAffinity}},
		{name: "anti-affinity", node: zoneB, existing: []*corev1.Pod{db}, pod: testPod("p", requiredAntiAffinity(podAffinityTerm("zone", "app", "db"))), want: []string{reasonPodAntiAffinity}, wantCode: unschedulable},
		{name: "anti-affinity other zone", node: zoneA, existing: []*corev1.Pod{db}, pod: testPod("p", requiredAntiAffinity(podAffinityTerm("zone", "app", "db")))},
		{name: "existing anti-affinity", node: zoneB, existing: []*corev1.Pod{testPod("x", onNode("b"), requiredAntiAffinity(podAffinityTerm("zone", "app", "web")))}, pod: testPod("p", podLabels("app", "web")), want: []string{reasonExistingAntiAffinity}, wantCode: unschedulable},
		{name: "existing anti-affinity other zone", node: zoneA, existing: []*corev1.Pod{testPod("x", onNode("b"), requiredAntiAffinity(podAffinityTerm("zone", "app", "web")))}, pod: testPod("p", podLabels("app", "web"))},
	}, zoneA, zoneB)
}

// PodTopologySpread DoNotSchedule: skew against the emptiest domain,
// the missing label as unresolvable, minDomains counting absent domains
// as zero.
func TestFilterSpread(t *testing.T) {
	a := testNode("a", nodeLabels("zone", "z1"))
	b := testNode("b", nodeLabels("zone", "z2"))
	web := func(name, node string) *corev1.Pod { return testPod(name, onNode(node), podLabels("app", "web")) }
	newWeb := func(opts ...func(*corev1.Pod)) *corev1.Pod {
		return testPod("p", append([]func(*corev1.Pod){podLabels("app", "web"), spread("zone", 1, corev1.DoNotSchedule, "app", "web")}, opts...)...)
	}
	minDomains := func(n int32) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.Spec.TopologySpreadConstraints[0].MinDomains = &n }
	}
	runFilterCases(t, []filterCase{
		{name: "balanced", node: a, existing: []*corev1.Pod{web("w1", "a"), web("w2", "b")}, pod: newWeb()},
		{name: "skew", node: a, existing: []*corev1.Pod{web("w1", "a")}, pod: newWeb(), want: []string{reasonSpread}, wantCode: unschedulable},
		{name: "emptier domain", node: b, existing: []*corev1.Pod{web("w1", "a")}, pod: newWeb()},
		{name: "missing label", node: testNode("c"), pod: newWeb(), want: []string{reasonSpreadMissingLabel}, wantCode: unresolvable},
		{name: "minDomains above the domain count", node: b, existing: []*corev1.Pod{web("w1", "a"), web("w2", "b")}, pod: newWeb(minDomains(3)), want: []string{reasonSpread}},
		{name: "other pods do not count", node: a, existing: []*corev1.Pod{testPod("x", onNode("a"))}, pod: newWeb()},
	}, a, b)
}
