package endpointutil

import (
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// ServiceHandler queues a Service's namespace/name on every event.
func ServiceHandler(queue func(key string)) cache.ResourceEventHandlerFuncs {
	add := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			queue(key)
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: func(_, cur any) { add(cur) }, DeleteFunc: add}
}

// PodHandler queues the Services a Pod event concerns: those selecting
// a Pod that came or went, and those ServicesForPodChange names for an
// update.
func PodHandler(services corelisters.ServiceLister, queue func(key string), logger *slog.Logger) cache.ResourceEventHandlerFuncs {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	addOrDelete := func(obj any) {
		pod := PodFromDeleteAction(obj)
		if pod == nil {
			return
		}
		keys, err := ServicesSelecting(services, pod.Namespace, pod.Labels)
		if err != nil {
			logger.Info("listing the services of a pod", "pod", pod.Namespace+"/"+pod.Name, "err", err)
			return
		}
		for key := range keys {
			queue(key)
		}
	}
	update := func(old, cur any) {
		prev, ok1 := old.(*corev1.Pod)
		pod, ok2 := cur.(*corev1.Pod)
		if !ok1 || !ok2 {
			return
		}
		keys, err := ServicesForPodChange(services, prev, pod)
		if err != nil {
			logger.Info("listing the services of a pod", "pod", pod.Namespace+"/"+pod.Name, "err", err)
			return
		}
		for key := range keys {
			queue(key)
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: addOrDelete, UpdateFunc: update, DeleteFunc: addOrDelete}
}

// SliceHandler queues the Service a slice names when a slice managed by
// managedBy changed other than by the controller's own write (per
// tracker), was taken over from or handed to another manager, or was
// relabelled to another Service.
func SliceHandler(managedBy string, tracker *SliceTracker, queue func(key string)) cache.ResourceEventHandlerFuncs {
	managed := func(s *discoveryv1.EndpointSlice) bool { return s.Labels[discoveryv1.LabelManagedBy] == managedBy }
	queueSlice := func(s *discoveryv1.EndpointSlice) {
		if key := ServiceKeyOfSlice(s); key != "" {
			queue(key)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if s, ok := obj.(*discoveryv1.EndpointSlice); ok && managed(s) && tracker.ShouldSync(s) {
				queueSlice(s)
			}
		},
		UpdateFunc: func(old, cur any) {
			prev, ok1 := old.(*discoveryv1.EndpointSlice)
			s, ok2 := cur.(*discoveryv1.EndpointSlice)
			switch {
			case !ok1 || !ok2:
			case prev.Labels[discoveryv1.LabelServiceName] != s.Labels[discoveryv1.LabelServiceName]:
				queueSlice(prev)
				queueSlice(s)
			case managed(prev) != managed(s) || (managed(s) && tracker.ShouldSync(s)):
				queueSlice(s)
			}
		},
		DeleteFunc: func(obj any) {
			// A deletion the controller did not expect is repaired.
			if s := SliceFromDeleteAction(obj); s != nil && managed(s) && tracker.Has(s) && !tracker.HandleDeletion(s) {
				queueSlice(s)
			}
		},
	}
}
