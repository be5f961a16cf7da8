package worker

import (
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// Handler is one informer and the handler a controller adds to it.
type Handler struct {
	Informer cache.SharedIndexInformer
	Funcs    cache.ResourceEventHandler
}

// AddHandlers adds each handler to its informer, in order.
func AddHandlers(hs ...Handler) error {
	for _, h := range hs {
		if _, err := h.Informer.AddEventHandler(h.Funcs); err != nil {
			return err
		}
	}
	return nil
}

// Enqueue returns a function that adds an object's namespace/name key to
// q; a deleted object may come as a tombstone.
func Enqueue(q workqueue.TypedInterface[string]) func(obj any) {
	return func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			q.Add(key)
		}
	}
}

// EnqueueAll is the handler that queues the object itself on every add,
// update and delete: the owner's own informer.
func EnqueueAll(q workqueue.TypedInterface[string]) cache.ResourceEventHandlerFuncs {
	enqueue := Enqueue(q)
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, cur any) { enqueue(cur) },
		DeleteFunc: enqueue,
	}
}
