package scheduler

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// Upstream's requests assumed for a container that states none, used only
// to score (so that many request-less pods do not pile onto one node).
const (
	defaultMilliCPURequest = 100
	defaultMemoryRequest   = 200 * 1024 * 1024
)

// resources is a node's allocatable or a sum of requests, as integers.
type resources struct {
	milliCPU, memory, ephemeral int64
	// pods is the allocatable pod count (unused in sums of requests).
	pods int64
	// scalars are extended resources (example.com/gpu, hugepages-*).
	scalars map[corev1.ResourceName]int64
}

func newResources(rl corev1.ResourceList) resources {
	var r resources
	r.add(rl)
	return r
}

func (r *resources) add(rl corev1.ResourceList) {
	for name, q := range rl {
		r.addOne(name, q, 1)
	}
}

func (r *resources) addOne(name corev1.ResourceName, q resource.Quantity, sign int64) {
	switch name {
	case corev1.ResourceCPU:
		r.milliCPU += sign * q.MilliValue()
	case corev1.ResourceMemory:
		r.memory += sign * q.Value()
	case corev1.ResourceEphemeralStorage:
		r.ephemeral += sign * q.Value()
	case corev1.ResourcePods:
		r.pods += sign * q.Value()
	default:
		if isScalar(name) {
			if r.scalars == nil {
				r.scalars = map[corev1.ResourceName]int64{}
			}
			r.scalars[name] += sign * q.Value()
		}
	}
}

// plus adds o into r (requests of one more pod).
func (r *resources) plus(o resources, sign int64) {
	r.milliCPU += sign * o.milliCPU
	r.memory += sign * o.memory
	r.ephemeral += sign * o.ephemeral
	for k, v := range o.scalars {
		if r.scalars == nil {
			r.scalars = map[corev1.ResourceName]int64{}
		}
		r.scalars[k] += sign * v
	}
}

func (r resources) isZero() bool {
	if r.milliCPU != 0 || r.memory != 0 || r.ephemeral != 0 {
		return false
	}
	for _, v := range r.scalars {
		if v != 0 {
			return false
		}
	}
	return true
}

// isScalar is upstream's scalar resource test: hugepages, attachable
// volumes and any domain-qualified name (extended resources and prefixed
// native ones), but not a quota "requests." name.
func isScalar(name corev1.ResourceName) bool {
	s := string(name)
	switch {
	case strings.HasPrefix(s, corev1.ResourceHugePagesPrefix), strings.HasPrefix(s, corev1.ResourceAttachableVolumesPrefix):
		return true
	case strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix):
		return false
	}
	return strings.Contains(s, "/")
}

// podRequests is what the pod takes from a node: the larger of its
// containers' sum and each init container (sidecars counted as upstream
// counts them), plus the pod overhead; pod-level resources win when set.
func podRequests(pod *corev1.Pod) resources {
	return newResources(resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{}))
}

// podNonZeroRequests is podRequests with upstream's defaults for a
// container that requests no cpu or memory; only cpu and memory are kept.
func podNonZeroRequests(pod *corev1.Pod) resources {
	rl := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{
		NonMissingContainerRequests: corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewMilliQuantity(defaultMilliCPURequest, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(defaultMemoryRequest, resource.DecimalSI),
		},
	})
	r := newResources(rl)
	return resources{milliCPU: r.milliCPU, memory: r.memory}
}
