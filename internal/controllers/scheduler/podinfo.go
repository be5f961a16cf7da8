package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
)

// affinityTerm is a PodAffinityTerm with its selectors parsed.
type affinityTerm struct {
	namespaces  sets.Set[string]
	nsSelector  labels.Selector
	selector    labels.Selector
	topologyKey string
	weight      int32 // preferred terms only
}

// matches tells whether pod (in a namespace labelled nsLabels) is one the
// term selects.
func (t *affinityTerm) matches(pod *corev1.Pod, nsLabels labels.Set) bool {
	if !t.namespaces.Has(pod.Namespace) && !t.nsSelector.Matches(nsLabels) {
		return false
	}
	return t.selector.Matches(labels.Set(pod.Labels))
}

// podInfo is a pod with what scheduling reads of it computed once.
type podInfo struct {
	pod     *corev1.Pod
	req     resources // what resource fit counts
	nonZero resources // what scoring counts
	ports   []hostPort

	requiredAffinity, requiredAntiAffinity   []affinityTerm
	preferredAffinity, preferredAntiAffinity []affinityTerm
	// parseErr is a selector that does not parse: upstream lets such a
	// pod fail scheduling with the error rather than guess.
	parseErr error
}

func newPodInfo(pod *corev1.Pod) *podInfo {
	pi := &podInfo{pod: pod, req: podRequests(pod), nonZero: podNonZeroRequests(pod), ports: podHostPorts(pod)}
	a := pod.Spec.Affinity
	if a == nil {
		return pi
	}
	if pa := a.PodAffinity; pa != nil {
		pi.requiredAffinity = pi.terms(pa.RequiredDuringSchedulingIgnoredDuringExecution)
		pi.preferredAffinity = pi.weighted(pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		pi.requiredAntiAffinity = pi.terms(pa.RequiredDuringSchedulingIgnoredDuringExecution)
		pi.preferredAntiAffinity = pi.weighted(pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	return pi
}

func (pi *podInfo) hasAffinity() bool {
	return len(pi.requiredAffinity)+len(pi.requiredAntiAffinity)+len(pi.preferredAffinity)+len(pi.preferredAntiAffinity) > 0
}

func (pi *podInfo) terms(in []corev1.PodAffinityTerm) []affinityTerm {
	out := make([]affinityTerm, 0, len(in))
	for i := range in {
		out = append(out, pi.term(&in[i], 0))
	}
	return out
}

func (pi *podInfo) weighted(in []corev1.WeightedPodAffinityTerm) []affinityTerm {
	out := make([]affinityTerm, 0, len(in))
	for i := range in {
		out = append(out, pi.term(&in[i].PodAffinityTerm, in[i].Weight))
	}
	return out
}

// term parses one term: no namespaces and no namespace selector mean the
// pod's own namespace; an absent namespace selector selects nothing.
func (pi *podInfo) term(t *corev1.PodAffinityTerm, weight int32) affinityTerm {
	out := affinityTerm{topologyKey: t.TopologyKey, weight: weight, namespaces: sets.New(t.Namespaces...), nsSelector: labels.Nothing(), selector: labels.Nothing()}
	if len(t.Namespaces) == 0 && t.NamespaceSelector == nil {
		out.namespaces.Insert(pi.pod.Namespace)
	}
	var err error
	if t.NamespaceSelector != nil {
		if out.nsSelector, err = metav1.LabelSelectorAsSelector(t.NamespaceSelector); err != nil && pi.parseErr == nil {
			pi.parseErr = err
		}
	}
	if out.selector, err = metav1.LabelSelectorAsSelector(t.LabelSelector); err != nil && pi.parseErr == nil {
		pi.parseErr = err
	}
	if out.nsSelector == nil {
		out.nsSelector = labels.Nothing()
	}
	if out.selector == nil {
		out.selector = labels.Nothing()
	}
	return out
}

// hostPort is one host port a pod takes on its node.
type hostPort struct {
	ip       string
	protocol corev1.Protocol
	port     int32
}

// podHostPorts lists the host ports of the pod's containers and sidecars;
// an empty IP is 0.0.0.0 and an empty protocol TCP, as upstream reads them.
func podHostPorts(pod *corev1.Pod) []hostPort {
	var out []hostPort
	add := func(cs []corev1.Container, sidecarsOnly bool) {
		for i := range cs {
			if sidecarsOnly && (cs[i].RestartPolicy == nil || *cs[i].RestartPolicy != corev1.ContainerRestartPolicyAlways) {
				continue
			}
			for _, p := range cs[i].Ports {
				if p.HostPort <= 0 {
					continue
				}
				hp := hostPort{ip: p.HostIP, protocol: p.Protocol, port: p.HostPort}
				if hp.ip == "" {
					hp.ip = "0.0.0.0"
				}
				if hp.protocol == "" {
					hp.protocol = corev1.ProtocolTCP
				}
				out = append(out, hp)
			}
		}
	}
	add(pod.Spec.InitContainers, true)
	add(pod.Spec.Containers, false)
	return out
}
