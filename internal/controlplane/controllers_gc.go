package controlplane

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/restmapper"

	"github.com/kapi-dev/kapi/internal/controllers/garbagecollector"
)

// startGarbageCollector runs kube-controller-manager's garbage collector
// over the loopback client: for every deletable resource discovery lists,
// the shared typed informer when the resource is built in (as upstream,
// so that a resource other controllers watch is watched once) and a
// metadata-only one otherwise (one factory, owned here); events as
// "garbage-collector-controller" through the shared event broadcaster.
func startGarbageCollector(ctx context.Context, cc *controllerContext) error {
	clients, err := cc.metadataClients("garbage-collector")
	if err != nil {
		return err
	}
	md, dc := clients.metadata, clients.discovery
	// The mapper has its own cached discovery, reset at each resync; the
	// collector compares what dc lists now with what it follows.
	mapperDiscovery, err := discovery.NewDiscoveryClientForConfig(clients.config)
	if err != nil {
		return err
	}
	informers := metadatainformer.NewSharedInformerFactoryWithOptions(md, 0, metadatainformer.WithTransform(dropManagedFields))
	gc := garbagecollector.New(garbagecollector.Config{
		Metadata:  md,
		Informers: informers,
		Typed:     serverTypedInformers{cc: cc, ctx: ctx},
		Discovery: dc,
		Mapper:    restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(mapperDiscovery)),
		Recorder:  cc.events.coreRecorder("garbage-collector-controller"),
		Logger:    cc.logger,
	})
	go func() {
		gc.Run(ctx)
		informers.Shutdown()
	}()
	return nil
}

// dropManagedFields keeps the graph's cache small: the collector reads
// only owner references, finalizers and the deletion timestamp.
func dropManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// serverTypedInformers lends the collector the server's shared typed
// factory; the informers it asks for run as long as the server, as every
// shared informer does.
type serverTypedInformers struct {
	cc  *controllerContext
	ctx context.Context
}

func (s serverTypedInformers) ForResource(gvr schema.GroupVersionResource) (informers.GenericInformer, error) {
	return s.cc.informers.factory.ForResource(gvr)
}

func (s serverTypedInformers) StartWithContext(context.Context) { s.cc.startInformers(s.ctx) }
