package garbagecollector

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// TypedInformers is an informer factory of typed objects shared with other
// controllers; client-go's informers.SharedInformerFactory is one.
type TypedInformers interface {
	ForResource(resource schema.GroupVersionResource) (informers.GenericInformer, error)
	StartWithContext(ctx context.Context)
}

// informerFor is the informer that follows gvr: the typed factory's when
// it knows the resource (a built-in one), as kube-controller-manager's
// collector takes it, so that a resource other controllers watch is
// listed and watched once; the metadata-only factory's otherwise.
func (gc *GarbageCollector) informerFor(gvr schema.GroupVersionResource) cache.SharedIndexInformer {
	if gc.typed != nil {
		if inf, err := gc.typed.ForResource(gvr); err == nil {
			return inf.Informer()
		}
	}
	return gc.informers.ForResource(gvr).Informer()
}

// startInformers starts the informers asked for since the last start,
// with ctx itself where the factory takes one: a stop channel costs every
// informer a goroutine that turns it back into a context.
func (gc *GarbageCollector) startInformers(ctx context.Context) {
	if gc.typed != nil {
		gc.typed.StartWithContext(ctx)
	}
	if f, ok := gc.informers.(interface{ StartWithContext(context.Context) }); ok {
		f.StartWithContext(ctx)
		return
	}
	gc.informers.Start(ctx.Done())
}

// asPartial is the metadata of an object from either kind of informer.
// It shares the cached object's slices and maps: callers only read it.
func asPartial(obj any) (*metav1.PartialObjectMetadata, bool) {
	switch o := obj.(type) {
	case *metav1.PartialObjectMetadata:
		return o, true
	case metav1.Object:
		return meta.AsPartialObjectMetadata(o), true
	}
	return nil, false
}
