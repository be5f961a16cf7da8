package scheduler

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/tools/cache"
)

func podKey(pod *corev1.Pod) string { return pod.Namespace + "/" + pod.Name }

func terminal(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

// podHandlers keep the cache of assigned pods and queue unassigned ones.
func (s *Scheduler) podHandlers() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pod, ok := obj.(*corev1.Pod); ok {
				s.podChanged(nil, pod)
			}
		},
		UpdateFunc: func(old, cur any) {
			o, ok1 := old.(*corev1.Pod)
			c, ok2 := cur.(*corev1.Pod)
			if ok1 && ok2 {
				s.podChanged(o, c)
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				s.podDeleted(pod)
			}
		},
	}
}

func (s *Scheduler) podChanged(old, pod *corev1.Pod) {
	key := podKey(pod)
	if pod.Spec.NodeName != "" {
		s.queue.remove(key)
		if terminal(pod) {
			// A finished pod frees its node, as if it were deleted.
			s.podDeleted(pod)
			return
		}
		s.cache.setPod(key, pod)
		if old == nil || old.Spec.NodeName == "" {
			s.assignedPodAdded(pod)
		}
		return
	}
	if !responsible(pod) {
		s.queue.remove(key)
		return
	}
	if old != nil && !specOrLabelsChanged(old, pod) {
		// A status write (our own PodScheduled condition) is no reason to
		// try again: the pod is queued or parked already.
		return
	}
	s.queue.add(key)
}

// specOrLabelsChanged: an update that may change where the pod fits.
func specOrLabelsChanged(old, cur *corev1.Pod) bool {
	return !equality.Semantic.DeepEqual(old.Spec, cur.Spec) || !reflect.DeepEqual(old.Labels, cur.Labels)
}

// assignedPodAdded retries parked pods with required pod affinity: the
// new pod may be the one they wait for.
func (s *Scheduler) assignedPodAdded(*corev1.Pod) {
	s.queue.moveAll(func(key string) bool {
		ns, name, err := cache.SplitMetaNamespaceKey(key)
		if err != nil {
			return false
		}
		p, err := s.pods.Pods(ns).Get(name)
		return err == nil && p.Spec.Affinity != nil && p.Spec.Affinity.PodAffinity != nil &&
			len(p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
	})
}

func (s *Scheduler) podDeleted(pod *corev1.Pod) {
	key := podKey(pod)
	if pod.Spec.NodeName == "" {
		s.queue.remove(key)
		s.cache.removePod(key)
		return
	}
	s.cache.removePod(key)
	// Room freed: every parked pod may fit now.
	s.queue.moveAll(nil)
}

// nodeHandlers keep the cache's nodes and retry parked pods when a node
// comes or changes in a way that can matter.
func (s *Scheduler) nodeHandlers() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if n, ok := obj.(*corev1.Node); ok {
				s.cache.upsertNode(n)
				s.queue.moveAll(nil)
			}
		},
		UpdateFunc: func(old, cur any) {
			o, ok1 := old.(*corev1.Node)
			n, ok2 := cur.(*corev1.Node)
			if !ok1 || !ok2 {
				return
			}
			s.cache.upsertNode(n)
			if nodeSchedulingChanged(o, n) {
				s.queue.moveAll(nil)
			}
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if n, ok := obj.(*corev1.Node); ok {
				s.cache.deleteNode(n.Name)
			}
		},
	}
}

// nodeSchedulingChanged: what upstream's node update events watch
// (allocatable, labels, taints, unschedulable, condition statuses), not
// heartbeats.
func nodeSchedulingChanged(old, cur *corev1.Node) bool {
	if !reflect.DeepEqual(old.Labels, cur.Labels) || !equality.Semantic.DeepEqual(old.Spec, cur.Spec) ||
		!equality.Semantic.DeepEqual(old.Status.Allocatable, cur.Status.Allocatable) {
		return true
	}
	if len(old.Status.Conditions) != len(cur.Status.Conditions) {
		return true
	}
	for i := range old.Status.Conditions {
		if old.Status.Conditions[i].Type != cur.Status.Conditions[i].Type || old.Status.Conditions[i].Status != cur.Status.Conditions[i].Status {
			return true
		}
	}
	return false
}
