package quota

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/clock"
)

var podCountName = CountResourceName(schema.GroupResource{Resource: "pods"})

// podResources are the fixed names pods consume.
var podResources = []corev1.ResourceName{
	podCountName,
	corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
	corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsEphemeralStorage,
	corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage,
	corev1.ResourcePods,
}

// podMustRequest are the names that, when a quota limits them, every
// container must state: upstream keeps this historical coupling for cpu
// and memory only.
var podMustRequest = map[corev1.ResourceName]bool{
	corev1.ResourceCPU: true, corev1.ResourceMemory: true,
	corev1.ResourceRequestsCPU: true, corev1.ResourceRequestsMemory: true,
	corev1.ResourceLimitsCPU: true, corev1.ResourceLimitsMemory: true,
}

const deviceClassPrefix = "deviceclass.resource.kubernetes.io/"

// podEvaluator measures pods: compute requests and limits, pod counts.
type podEvaluator struct{ clock clock.PassiveClock }

// NewPodEvaluator measures pods; clock decides when a terminating pod's
// grace period has passed.
func NewPodEvaluator(c clock.PassiveClock) Evaluator { return &podEvaluator{clock: c} }

func (p *podEvaluator) GroupResource() schema.GroupResource {
	return schema.GroupResource{Resource: "pods"}
}

// Handles creates, updates that move a pod in or out of the Terminating
// scope, and resizes.
func (p *podEvaluator) Handles(op admission.Operation, subresource string, obj, old runtime.Object) bool {
	switch subresource {
	case "":
		if op == admission.Update {
			pod, ok1 := obj.(*corev1.Pod)
			oldPod, ok2 := old.(*corev1.Pod)
			return ok1 && ok2 && isTerminating(pod) != isTerminating(oldPod)
		}
		return op == admission.Create
	case "resize":
		return op == admission.Update
	}
	return false
}

func (p *podEvaluator) MatchingResources(names []corev1.ResourceName) []corev1.ResourceName {
	out := Intersection(names, podResources)
	for _, n := range names {
		s := string(n)
		if strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) || strings.HasPrefix(s, corev1.ResourceRequestsHugePagesPrefix) || isExtendedRequestName(n) {
			out = append(out, n)
		}
	}
	return out
}

// isExtendedRequestName: quota limits extended resources only as
// requests.<name>.
func isExtendedRequestName(n corev1.ResourceName) bool {
	s := string(n)
	if !strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return !isNative(n) || strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix+deviceClassPrefix)
}

// isNative: unprefixed names and those in the kubernetes.io domain.
func isNative(n corev1.ResourceName) bool {
	s := string(n)
	return !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix)
}

// isExtended: a resource a container may request that is neither native
// nor already a quota name.
func isExtended(n corev1.ResourceName) bool {
	s := string(n)
	if strings.HasPrefix(s, deviceClassPrefix) {
		return true
	}
	return !isNative(n) && !strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix)
}

func (p *podEvaluator) MatchesScope(sel corev1.ScopedResourceSelectorRequirement, obj runtime.Object) (bool, error) {
	pod, err := asPod(obj)
	if err != nil {
		return false, err
	}
	switch sel.ScopeName {
	case corev1.ResourceQuotaScopeTerminating:
		return isTerminating(pod), nil
	case corev1.ResourceQuotaScopeNotTerminating:
		return !isTerminating(pod), nil
	case corev1.ResourceQuotaScopeBestEffort:
		return isBestEffort(pod), nil
	case corev1.ResourceQuotaScopeNotBestEffort:
		return !isBestEffort(pod), nil
	case corev1.ResourceQuotaScopePriorityClass:
		if sel.Operator == corev1.ScopeSelectorOpExists {
			return pod.Spec.PriorityClassName != "", nil
		}
		var values []string
		if pod.Spec.PriorityClassName != "" {
			values = []string{pod.Spec.PriorityClassName}
		}
		return selectorMatches(sel, values)
	case corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return usesCrossNamespaceAffinity(pod), nil
	}
	return false, nil
}

// Constraints: when a quota limits cpu or memory, every container must
// state them, unless the pod sets pod-level resources.
func (p *podEvaluator) Constraints(required []corev1.ResourceName, obj runtime.Object) error {
	pod, err := asPod(obj)
	if err != nil {
		return err
	}
	if resourcehelper.IsPodLevelResourcesSet(pod) {
		return nil
	}
	var want []corev1.ResourceName
	for _, n := range required {
		if podMustRequest[n] && !Contains(want, n) {
			want = append(want, n)
		}
	}
	if len(want) == 0 {
		return nil
	}
	missing := map[corev1.ResourceName][]string{}
	check := func(c *corev1.Container) {
		has := podComputeUsage(c.Resources.Requests, c.Resources.Limits)
		for _, n := range want {
			if _, ok := has[n]; !ok && !slices.Contains(missing[n], c.Name) {
				missing[n] = append(missing[n], c.Name)
			}
		}
	}
	for i := range pod.Spec.Containers {
		check(&pod.Spec.Containers[i])
	}
	for i := range pod.Spec.InitContainers {
		check(&pod.Spec.InitContainers[i])
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, 0, len(missing))
	for n := range missing {
		names = append(names, string(n))
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		containers := missing[corev1.ResourceName(n)]
		sort.Strings(containers)
		parts = append(parts, fmt.Sprintf("%s for: %s", n, strings.Join(containers, ",")))
	}
	return fmt.Errorf("must specify %s", strings.Join(parts, "; "))
}

// Usage: a pod always counts as an object; its compute resources count
// until it ends or its grace period after deletion has passed.
func (p *podEvaluator) Usage(obj runtime.Object) (corev1.ResourceList, error) {
	pod, err := asPod(obj)
	if err != nil {
		return nil, err
	}
	out := corev1.ResourceList{podCountName: *resource.NewQuantity(1, resource.DecimalSI)}
	if !PodCharged(pod, p.clock) {
		return out, nil
	}
	opts := resourcehelper.PodResourcesOptions{UseStatusResources: true}
	requests := resourcehelper.PodRequests(pod, opts)
	limits := resourcehelper.PodLimits(pod, opts)
	return Add(out, podComputeUsage(requests, limits)), nil
}

// podComputeUsage turns requests and limits into quota names.
func podComputeUsage(requests, limits corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}
	for _, r := range []struct{ plain, req, lim corev1.ResourceName }{
		{corev1.ResourceCPU, corev1.ResourceRequestsCPU, corev1.ResourceLimitsCPU},
		{corev1.ResourceMemory, corev1.ResourceRequestsMemory, corev1.ResourceLimitsMemory},
		{corev1.ResourceEphemeralStorage, corev1.ResourceRequestsEphemeralStorage, corev1.ResourceLimitsEphemeralStorage},
	} {
		if q, ok := requests[r.plain]; ok {
			out[r.plain] = q
			out[r.req] = q
		}
		if q, ok := limits[r.plain]; ok {
			out[r.lim] = q
		}
	}
	for n, q := range requests {
		if strings.HasPrefix(string(n), corev1.ResourceHugePagesPrefix) {
			out[n] = q
			out[corev1.DefaultResourceRequestsPrefix+n] = q
		}
		if isExtended(n) {
			out[corev1.DefaultResourceRequestsPrefix+n] = q
		}
	}
	return out
}

// PodCharged reports whether a pod's compute resources count: not when it
// has ended, nor when it was deleted and its grace period has passed.
func PodCharged(pod *corev1.Pod, c clock.PassiveClock) bool {
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return false
	}
	if pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil {
		end := pod.DeletionTimestamp.Add(time.Duration(*pod.DeletionGracePeriodSeconds) * time.Second)
		if c.Now().After(end) {
			return false
		}
	}
	return true
}

func asPod(obj runtime.Object) (*corev1.Pod, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("expect *v1.Pod, got %T", obj)
	}
	return pod, nil
}

func isTerminating(pod *corev1.Pod) bool {
	return pod.Spec.ActiveDeadlineSeconds != nil && *pod.Spec.ActiveDeadlineSeconds >= 0
}

// isBestEffort is the BestEffort QoS class: no cpu or memory request or
// limit anywhere in the pod.
func isBestEffort(pod *corev1.Pod) bool {
	nonZero := func(l corev1.ResourceList) bool {
		for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := l[n]; ok && q.Sign() > 0 {
				return true
			}
		}
		return false
	}
	if r := pod.Spec.Resources; r != nil && (nonZero(r.Requests) || nonZero(r.Limits)) {
		return false
	}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			if nonZero(cs[i].Resources.Requests) || nonZero(cs[i].Resources.Limits) {
				return false
			}
		}
	}
	return true
}

func usesCrossNamespaceAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	if a == nil {
		return false
	}
	cross := func(t *corev1.PodAffinityTerm) bool { return len(t.Namespaces) != 0 || t.NamespaceSelector != nil }
	check := func(req []corev1.PodAffinityTerm, pref []corev1.WeightedPodAffinityTerm) bool {
		for i := range req {
			if cross(&req[i]) {
				return true
			}
		}
		for i := range pref {
			if cross(&pref[i].PodAffinityTerm) {
				return true
			}
		}
		return false
	}
	if a.PodAffinity != nil && check(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) {
		return true
	}
	return a.PodAntiAffinity != nil && check(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
}
