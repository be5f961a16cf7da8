package controlplane

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/record"

	"github.com/kapi-dev/kapi/internal/controllers/garbagecollector"
)

// startGarbageCollector runs kube-controller-manager's garbage collector
// over the loopback client: for every deletable resource discovery lists,
// the shared typed informer when the resource is built in (as upstream,
// so that a resource other controllers watch is watched once) and a
// metadata-only one otherwise (one factory, owned here); events as
// "garbage-collector-controller".
func startGarbageCollector(ctx context.Context, cc *controllerContext) error {
	clients, err := cc.metadataClients("garbage-collector")
	if err != nil {
		return err
	}
	cs, md, dc := clients.clientset, clients.metadata, clients.discovery
	// The mapper has its own cached discovery, reset at each resync; the
	// collector compares what dc lists now with what it follows.
	mapperDiscovery, err := discovery.NewDiscoveryClientForConfig(clients.config)
	if err != nil {
		return err
	}
	informers := metadatainformer.NewSharedInformerFactoryWithOptions(md, 0, metadatainformer.WithTransform(dropManagedFields))
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	gc := garbagecollector.New(garbagecollector.Config{
		Metadata:  md,
		Informers: informers,
		Typed:     serverTypedInformers{cc: cc, ctx: ctx},
		Discovery: dc,
		Mapper:    restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(mapperDiscovery)),
		Recorder:  broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "garbage-collector-controller"}),
		Logger:    cc.logger,
	})
	go func() {
		gc.Run(ctx)
		informers.Shutdown()
		broadcaster.Shutdown()
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
