package scheduler

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// ownerListers are what upstream's system default spreading reads to
// find the pods a pod should be spread from: the Services selecting it
// and its controlling ReplicationController, ReplicaSet or StatefulSet.
type ownerListers struct {
	services     corelisters.ServiceLister
	rcs          corelisters.ReplicationControllerLister
	replicaSets  appslisters.ReplicaSetLister
	statefulSets appslisters.StatefulSetLister
}

// Upstream's system default constraints (PodTopologySpread's
// defaultingType System): spread over hostnames with maxSkew 3 and
// zones with maxSkew 5, ScheduleAnyway, for a pod that states none.
func (s *Scheduler) defaultSpreadConstraints(pod *corev1.Pod) []spreadConstraint {
	if s.owners == nil {
		return nil
	}
	sel := s.defaultSelector(pod)
	if sel.Empty() {
		return nil
	}
	return []spreadConstraint{
		{maxSkew: 3, key: corev1.LabelHostname, selector: sel, minDomains: 1, honorAffinity: true},
		{maxSkew: 5, key: corev1.LabelTopologyZone, selector: sel, minDomains: 1, honorAffinity: true},
	}
}

// defaultSelector merges the selectors of the Services selecting the pod
// and of its controller, as upstream's DefaultSelector does.
func (s *Scheduler) defaultSelector(pod *corev1.Pod) labels.Selector {
	set := labels.Set{}
	if svcs, err := s.owners.services.Services(pod.Namespace).List(labels.Everything()); err == nil {
		for _, svc := range svcs {
			if svc.Spec.Selector != nil && labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
				set = labels.Merge(set, svc.Spec.Selector)
			}
		}
	}
	sel := set.AsSelector()
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil {
		return sel
	}
	var ls *metav1.LabelSelector
	switch {
	case ref.Kind == "ReplicationController" && ref.APIVersion == "v1":
		if rc, err := s.owners.rcs.ReplicationControllers(pod.Namespace).Get(ref.Name); err == nil {
			return labels.Merge(set, rc.Spec.Selector).AsSelector()
		}
	case ref.Kind == "ReplicaSet" && ref.APIVersion == "apps/v1":
		if rs, err := s.owners.replicaSets.ReplicaSets(pod.Namespace).Get(ref.Name); err == nil {
			ls = rs.Spec.Selector
		}
	case ref.Kind == "StatefulSet" && ref.APIVersion == "apps/v1":
		if ss, err := s.owners.statefulSets.StatefulSets(pod.Namespace).Get(ref.Name); err == nil {
			ls = ss.Spec.Selector
		}
	}
	if ls != nil {
		if other, err := metav1.LabelSelectorAsSelector(ls); err == nil {
			if reqs, ok := other.Requirements(); ok {
				sel = sel.Add(reqs...)
			}
		}
	}
	return sel
}
