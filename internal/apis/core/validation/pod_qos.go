package validation

import (
	corev1 "k8s.io/api/core/v1"
)

// PodQOSClass is the pod's recorded QoS class, or the computed one when
// none is recorded yet.
func PodQOSClass(pod *corev1.Pod) corev1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	return ComputePodQOS(pod)
}

// ComputePodQOS computes a pod's QoS class from the cpu and memory of its
// containers and init containers (or of the pod-level resources, when
// set): BestEffort without any, Guaranteed when every container limits
// both and requests equal limits, Burstable otherwise.
func ComputePodQOS(pod *corev1.Pod) corev1.PodQOSClass {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	guaranteed := true
	add := func(into corev1.ResourceList, list corev1.ResourceList) (cpuAndMemory bool) {
		found := map[corev1.ResourceName]bool{}
		for name, q := range list {
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory || q.Sign() <= 0 {
				continue
			}
			found[name] = true
			sum := q.DeepCopy()
			if prev, ok := into[name]; ok {
				sum.Add(prev)
			}
			into[name] = sum
		}
		return found[corev1.ResourceCPU] && found[corev1.ResourceMemory]
	}
	var lists []corev1.ResourceRequirements
	if pod.Spec.Resources != nil {
		lists = append(lists, *pod.Spec.Resources)
	} else {
		for _, c := range pod.Spec.Containers {
			lists = append(lists, c.Resources)
		}
		for _, c := range pod.Spec.InitContainers {
			lists = append(lists, c.Resources)
		}
	}
	for _, r := range lists {
		add(requests, r.Requests)
		// A container (or pod-level resources with limits) must limit both
		// cpu and memory for the pod to be Guaranteed; pod-level
		// resources without limits are settled by the comparison below.
		if !add(limits, r.Limits) && (pod.Spec.Resources == nil || len(r.Limits) > 0) {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}
