// Package endpointutil holds what kube-controller-manager's endpoints,
// endpointslice and endpointslice-mirroring controllers share: which Pods
// back a Service and on which ports, which Services a Pod change
// concerns, the last-change-trigger-time bookkeeping, and the tracker of
// the EndpointSlices a controller wrote itself.
package endpointutil

import (
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// IsPodReady says whether the Pod's Ready condition is True.
func IsPodReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// ShouldPodBeInEndpoints is upstream's filter: a Pod that finished
// (Succeeded or Failed) or has no IP is never an endpoint; a terminating
// one only when the caller includes terminating Pods.
func ShouldPodBeInEndpoints(pod *corev1.Pod, includeTerminating bool) bool {
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	if pod.Status.PodIP == "" && len(pod.Status.PodIPs) == 0 {
		return false
	}
	return includeTerminating || pod.DeletionTimestamp == nil
}

// ShouldSetHostname: a Pod names itself in a Service's endpoints when its
// subdomain is that Service (the DNS records of a headless Service).
func ShouldSetHostname(pod *corev1.Pod, svc *corev1.Service) bool {
	return pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Name && pod.Namespace == svc.Namespace
}

// IsServiceIPSet: the Service has a cluster IP (it is not headless).
func IsServiceIPSet(svc *corev1.Service) bool {
	return svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != corev1.ClusterIPNone
}

// FindPort resolves a Service port's targetPort on a Pod: a number as
// is, a name against the ports of its containers (and of its sidecars,
// restartable init containers) with the same protocol.
func FindPort(pod *corev1.Pod, svcPort *corev1.ServicePort) (int, error) {
	target := svcPort.TargetPort
	if target.Type == intstr.Int {
		return target.IntValue(), nil
	}
	match := func(cs []corev1.Container, sidecarsOnly bool) (int, bool) {
		for _, c := range cs {
			if sidecarsOnly && (c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways) {
				continue
			}
			for _, p := range c.Ports {
				if p.Name == target.StrVal && p.Protocol == svcPort.Protocol {
					return int(p.ContainerPort), true
				}
			}
		}
		return 0, false
	}
	if n, ok := match(pod.Spec.Containers, false); ok {
		return n, nil
	}
	if n, ok := match(pod.Spec.InitContainers, true); ok {
		return n, nil
	}
	return 0, fmt.Errorf("no container port named %q (%s) in pod %s/%s", target.StrVal, svcPort.Protocol, pod.Namespace, pod.Name)
}

// PodFromDeleteAction unwraps a deleted Pod, tombstone or not.
func PodFromDeleteAction(obj any) *corev1.Pod {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, _ := obj.(*corev1.Pod)
	return pod
}

// ServicesSelecting are the keys of the Services in namespace whose
// selector matches the labels.
func ServicesSelecting(lister corelisters.ServiceLister, namespace string, podLabels map[string]string) (sets.Set[string], error) {
	svcs, err := lister.Services(namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	keys := sets.New[string]()
	for _, svc := range svcs {
		if svc.Spec.Selector == nil {
			continue
		}
		if labels.SelectorFromValidatedSet(svc.Spec.Selector).Matches(labels.Set(podLabels)) {
			keys.Insert(svc.Namespace + "/" + svc.Name)
		}
	}
	return keys, nil
}

// ServicesForPodChange are the Services to sync after a Pod changed from
// old to cur: none when nothing an endpoint shows changed; those that
// gained or lost the Pod when only its labels (or hostname) changed;
// all it was or is in otherwise.
func ServicesForPodChange(lister corelisters.ServiceLister, old, cur *corev1.Pod) (sets.Set[string], error) {
	if old.ResourceVersion == cur.ResourceVersion {
		return nil, nil
	}
	podChanged := podEndpointChanged(old, cur)
	labelsChanged := !maps.Equal(old.Labels, cur.Labels) ||
		old.Spec.Hostname != cur.Spec.Hostname || old.Spec.Subdomain != cur.Spec.Subdomain
	if !podChanged && !labelsChanged {
		return nil, nil
	}
	now, err := ServicesSelecting(lister, cur.Namespace, cur.Labels)
	if err != nil || !labelsChanged {
		return now, err
	}
	before, err := ServicesSelecting(lister, cur.Namespace, old.Labels)
	if err != nil {
		return nil, err
	}
	if podChanged {
		return now.Union(before), nil
	}
	return now.SymmetricDifference(before), nil
}

// podEndpointChanged: what an endpoint shows of the Pod changed.
func podEndpointChanged(old, cur *corev1.Pod) bool {
	if (old.DeletionTimestamp == nil) != (cur.DeletionTimestamp == nil) || IsPodReady(old) != IsPodReady(cur) ||
		old.Spec.NodeName != cur.Spec.NodeName || old.Status.Phase != cur.Status.Phase {
		return true
	}
	if len(old.Status.PodIPs) != len(cur.Status.PodIPs) {
		return true
	}
	for i := range old.Status.PodIPs {
		if old.Status.PodIPs[i].IP != cur.Status.PodIPs[i].IP {
			return true
		}
	}
	return false
}
