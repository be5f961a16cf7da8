package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// unschedulableTaint is the taint a cordoned node is treated as having:
// a pod tolerating it may still go there (upstream's NodeUnschedulable).
var unschedulableTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// filterUnschedulable is NodeUnschedulable.
func filterUnschedulable(st *cycleState, n *nodeInfo) *status {
	if !n.node.Spec.Unschedulable {
		return nil
	}
	if corev1helpers.TolerationsTolerateTaint(klog.Background(), st.pod.Spec.Tolerations, &unschedulableTaint, false) {
		return nil
	}
	return reject(unresolvable, reasonUnschedulable)
}

// filterTaints is TaintToleration: a NoSchedule or NoExecute taint the
// pod does not tolerate keeps it off the node.
func filterTaints(st *cycleState, n *nodeInfo) *status {
	if len(n.node.Spec.Taints) == 0 {
		return nil
	}
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), n.node.Spec.Taints, st.pod.Spec.Tolerations, func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}, false)
	if untolerated {
		return reject(unresolvable, reasonTaints)
	}
	return nil
}

// filterNodeAffinity is NodeAffinity: spec.nodeSelector and the required
// node affinity terms.
func filterNodeAffinity(st *cycleState, n *nodeInfo) *status {
	if ok, _ := st.requiredNodeAffinity.Match(n.node); !ok {
		return reject(unresolvable, reasonNodeAffinity)
	}
	return nil
}

func requiredNodeAffinity(pod *corev1.Pod) nodeaffinity.RequiredNodeAffinity {
	return nodeaffinity.GetRequiredNodeAffinity(pod)
}

// filterPorts is NodePorts: a host port is taken when the same protocol
// and port are used on the same IP, 0.0.0.0 clashing with every IP.
func filterPorts(st *cycleState, n *nodeInfo) *status {
	for _, p := range st.info.ports {
		if portTaken(n.ports, p) {
			return reject(unschedulable, reasonPorts)
		}
	}
	return nil
}

func portTaken(used map[hostPort]int, p hostPort) bool {
	if len(used) == 0 {
		return false
	}
	if p.ip == "0.0.0.0" {
		for u := range used {
			if u.protocol == p.protocol && u.port == p.port {
				return true
			}
		}
		return false
	}
	return used[p] > 0 || used[hostPort{ip: "0.0.0.0", protocol: p.protocol, port: p.port}] > 0
}

// filterFit is NodeResourcesFit: the pod count and every requested
// resource against allocatable minus what bound pods request; each
// shortage is its own reason.
func filterFit(st *cycleState, n *nodeInfo) *status {
	var reasons []string
	if int64(len(n.pods))+1 > n.allocatable.pods {
		reasons = append(reasons, reasonTooManyPods)
	}
	req := &st.info.req
	if req.isZero() {
		return fitStatus(reasons)
	}
	free := func(alloc, used int64) int64 { return alloc - used }
	if req.milliCPU > 0 && req.milliCPU > free(n.allocatable.milliCPU, n.requested.milliCPU) {
		reasons = append(reasons, insufficient(string(corev1.ResourceCPU)))
	}
	if req.memory > 0 && req.memory > free(n.allocatable.memory, n.requested.memory) {
		reasons = append(reasons, insufficient(string(corev1.ResourceMemory)))
	}
	if req.ephemeral > 0 && req.ephemeral > free(n.allocatable.ephemeral, n.requested.ephemeral) {
		reasons = append(reasons, insufficient(string(corev1.ResourceEphemeralStorage)))
	}
	for _, name := range st.scalarNames {
		if v := req.scalars[name]; v > 0 && v > free(n.allocatable.scalars[name], n.requested.scalars[name]) {
			reasons = append(reasons, insufficient(string(name)))
		}
	}
	return fitStatus(reasons)
}

func fitStatus(reasons []string) *status {
	if len(reasons) == 0 {
		return nil
	}
	return reject(unschedulable, reasons...)
}
