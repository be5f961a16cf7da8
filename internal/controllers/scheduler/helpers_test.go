package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// testNode is a Ready node with 4 cpu, 8Gi and 110 pods allocatable.
func testNode(name string, opts ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("4"),
				corev1.ResourceMemory: resource.MustParse("8Gi"),
				corev1.ResourcePods:   resource.MustParse("110"),
			},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	for _, o := range opts {
		o(n)
	}
	return n
}

func nodeLabels(kv ...string) func(*corev1.Node) {
	return func(n *corev1.Node) {
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func nodeTaint(key, value string, effect corev1.TaintEffect) func(*corev1.Node) {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func cordoned(n *corev1.Node) { n.Spec.Unschedulable = true }

func allocatable(name corev1.ResourceName, q string) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Status.Allocatable[name] = resource.MustParse(q) }
}

// testPod is a pod of the default scheduler in namespace "default".
func testPod(name string, opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{
			SchedulerName: corev1.DefaultSchedulerName,
			Containers:    []corev1.Container{{Name: "c", Image: "busybox"}},
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func requests(cpu, mem string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		rl := corev1.ResourceList{}
		if cpu != "" {
			rl[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		if mem != "" {
			rl[corev1.ResourceMemory] = resource.MustParse(mem)
		}
		p.Spec.Containers[0].Resources.Requests = rl
	}
}

func podLabels(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func onNode(name string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.NodeName = name }
}

func nodeSelector(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.NodeSelector = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func hostPortOn(ip string, proto corev1.Protocol, port int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, HostIP: ip, Protocol: proto})
	}
}

func toleration(key string, effect corev1.TaintEffect) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect})
	}
}

func podAffinityTerm(key string, kv ...string) corev1.PodAffinityTerm {
	ml := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		ml[kv[i]] = kv[i+1]
	}
	return corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: ml}, TopologyKey: key}
}

func requiredAffinity(t corev1.PodAffinityTerm) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{t}}}
	}
}

func requiredAntiAffinity(t corev1.PodAffinityTerm) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{t}}}
	}
}

func spread(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction, kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		ml := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			ml[kv[i]] = kv[i+1]
		}
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when, LabelSelector: &metav1.LabelSelector{MatchLabels: ml},
		})
	}
}

// testScheduler is a Scheduler over a cache holding nodes and assigned
// pods, without informers or client: enough to filter and score.
func testScheduler(t testing.TB, nodes []*corev1.Node, pods []*corev1.Pod) *Scheduler {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = idx.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default", Labels: map[string]string{"kubernetes.io/metadata.name": "default"}}})
	s := &Scheduler{cache: newCache(), namespaces: corelisters.NewNamespaceLister(idx)}
	for _, n := range nodes {
		s.cache.upsertNode(n)
	}
	for _, p := range pods {
		s.cache.setPod(podKey(p), p)
	}
	return s
}

// filterOn runs every filter for pod on the named node.
func (s *Scheduler) filterOn(t testing.TB, pod *corev1.Pod, node string) *status {
	t.Helper()
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	nodes := s.cache.listLocked()
	st, err := s.newCycleState(pod, nodes)
	if err != nil {
		t.Fatal(err)
	}
	return runFilters(s.filters(), st, s.cache.nodes[node])
}

func reasonsOf(st *status) []string {
	if st == nil {
		return nil
	}
	return st.reasons
}

func mustQ(s string) resource.Quantity { return resource.MustParse(s) }

func requestsOn(c *corev1.Container, cpu, mem string) {
	rl := corev1.ResourceList{}
	if cpu != "" {
		rl[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		rl[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	c.Resources.Requests = rl
}
