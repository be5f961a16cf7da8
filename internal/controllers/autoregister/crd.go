package autoregister

import (
	"context"
	"log/slog"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/apiextensions/v1"
	apiextensionslisters "k8s.io/apiextensions-apiserver/pkg/client/listers/apiextensions/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
)

// Registry is what CRDs asks of the APIService controller.
type Registry interface {
	Add(s *apiregistrationv1.APIService)
	Remove(name string)
}

// CRDs asks for one local APIService per served version of every CRD,
// and drops it when no CRD serves that group version any more.
type CRDs struct {
	lister   apiextensionslisters.CustomResourceDefinitionLister
	synced   cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[schema.GroupVersion]
	registry Registry
	logger   *slog.Logger
}

// NewCRDs returns the CRD registration controller over the CRD informer.
func NewCRDs(informer apiextensionsinformers.CustomResourceDefinitionInformer, registry Registry, logger *slog.Logger) (*CRDs, error) {
	c := &CRDs{
		lister:   informer.Lister(),
		synced:   informer.Informer().HasSynced,
		queue:    worker.NewTypedQueue[schema.GroupVersion]("crd-autoregister"),
		registry: registry,
		logger:   logger,
	}
	enqueue := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
			for _, v := range crd.Spec.Versions {
				c.queue.Add(schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name})
			}
		}
	}
	_, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue,
		UpdateFunc: func(old, obj any) {
			enqueue(old)
			enqueue(obj)
		},
		DeleteFunc: enqueue,
	})
	return c, err
}

// SyncAll registers every group version the CRDs serve now, once the
// cache has synced: run before the APIService controller starts, so that
// its first pass does not delete the APIServices of existing CRDs. It is
// false if ctx ended first.
func (c *CRDs) SyncAll(ctx context.Context) bool {
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		return false
	}
	crds, err := c.lister.List(labels.Everything())
	if err != nil {
		c.logger.Error("listing CRDs", "err", err)
	}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			_ = c.sync(ctx, schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name})
		}
	}
	return true
}

// Run syncs changed group versions until ctx ends.
func (c *CRDs) Run(ctx context.Context, workers int) {
	worker.RunSynced(ctx, c.queue, workers, c.logger, []cache.InformerSynced{c.synced}, c.sync)
}

// sync adds or removes the APIService of gv. Built-in group versions are
// left to the built-in registration.
func (c *CRDs) sync(_ context.Context, gv schema.GroupVersion) error {
	if IsBuiltin(gv) {
		return nil
	}
	name := gv.Version + "." + gv.Group
	crds, err := c.lister.List(labels.Everything())
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if crd.Spec.Group != gv.Group {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == gv.Version && v.Served {
				c.registry.Add(localAPIService(gv, priority{crdGroupPriorityMinimum, crdVersionPriority}))
				return nil
			}
		}
	}
	c.registry.Remove(name)
	return nil
}
