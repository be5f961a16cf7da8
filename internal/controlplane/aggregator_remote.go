package controlplane

import (
	"context"
	"log/slog"
	"reflect"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"

	"github.com/kapi-dev/kapi/internal/server"
)

// addRemoteAPIServicesHook wires the aggregator's controllers under
// upstream's post-start hook names:
//   - start-kube-aggregator-informers starts the informers of
//     APIServices (agg's, shared by every aggregator hook), Services and
//     EndpointSlices;
//   - apiservice-registration-controller installs, replaces and removes a
//     proxy per remote APIService as APIServices change;
//   - apiservice-status-local-available-controller and
//     apiservice-status-remote-available-controller keep the Available
//     condition, the remote one checked again on every change of the
//     Service and EndpointSlices an APIService references and
//     periodically;
//   - apiservice-wait-for-first-sync returns once every Available remote
//     APIService has its proxy.
func addRemoteAPIServicesHook(s *server.GenericServer, c *Config, agg *aggregatorInformers, si *sharedInformers, logger *slog.Logger) error {
	cert, err := loadProxyClientCert(c.Security.ProxyClientCertFile, c.Security.ProxyClientKeyFile)
	if err != nil {
		return err
	}
	regClient, regFactory, apiServices := agg.client, agg.factory, agg.apiServices
	// Services and EndpointSlices come from the server's shared factory,
	// as upstream's aggregator reads kube-apiserver's: the controllers
	// watch both too.
	services := si.factory.Core().V1().Services()
	slices := si.factory.Discovery().V1().EndpointSlices()
	if err := addEndpointSliceIndex(slices.Informer()); err != nil {
		return err
	}
	resolver := &aggregatorResolver{services: services.Lister(), slices: slices.Informer().GetIndexer(), routing: !c.DisableAggregatorRouting}
	log := logger.With("component", "aggregator")
	remotes := &remoteAPIServices{mux: s.Handler.APIMux, resolver: resolver, clientCert: cert, logger: log, proxies: map[string]*proxySlot{}}
	recheck := c.aggregatorAvailabilityRecheck
	if recheck <= 0 {
		recheck = defaultAvailabilityRecheck
	}
	newAvail := func(local bool, name string) *availability {
		return &availability{
			local: local, lister: apiServices.Lister(), client: regClient.ApiregistrationV1(),
			services: services.Lister(), slices: slices.Informer().GetIndexer(), resolver: resolver,
			discovery: newDiscoveryClient(cert), recheck: recheck,
			queue: newAvailabilityQueue(name), logger: logger.With("controller", name),
		}
	}
	w := &aggregatorWiring{
		apiServices: apiServices.Lister(), apiServicesInformer: apiServices.Informer(), remotes: remotes,
		local:  newAvail(true, "LocalAvailability"),
		remote: newAvail(false, "RemoteAvailability"),
	}
	if err := w.addHandlers(apiServices.Informer(), services.Informer(), slices.Informer()); err != nil {
		return err
	}
	synced := []cache.SharedIndexInformer{apiServices.Informer(), services.Informer(), slices.Informer()}
	hooks := []struct {
		name string
		fn   server.PostStartHookFunc
	}{
		{"start-kube-aggregator-informers", func(hc server.PostStartHookContext) error {
			regFactory.StartWithContext(hc.Context)
			// The shared factory stops with the server (its own hook).
			si.factory.StartWithContext(hc.Context)
			go func() {
				<-hc.Context.Done()
				regFactory.Shutdown()
			}()
			return nil
		}},
		{"apiservice-registration-controller", func(hc server.PostStartHookContext) error {
			// Proxies follow the informer's events; ready once it synced.
			waitForSync(hc.Context, apiServices.Informer())
			return nil
		}},
		{"apiservice-status-local-available-controller", func(hc server.PostStartHookContext) error {
			go runWhenSynced(hc.Context, w.local, synced[:1])
			return nil
		}},
		{"apiservice-status-remote-available-controller", func(hc server.PostStartHookContext) error {
			go runWhenSynced(hc.Context, w.remote, synced)
			return nil
		}},
		{"apiservice-wait-for-first-sync", w.waitForFirstSync},
	}
	for _, h := range hooks {
		if err := s.AddPostStartHook(h.name, h.fn); err != nil {
			return err
		}
	}
	return nil
}

// runWhenSynced runs a once its informers synced; it only releases its
// queue if ctx ends first.
func runWhenSynced(ctx context.Context, a *availability, synced []cache.SharedIndexInformer) {
	if waitForSync(ctx, synced...) {
		a.run(ctx)
		return
	}
	a.queue.ShutDown()
}

// aggregatorWiring routes informer events to the proxies and the two
// availability controllers.
type aggregatorWiring struct {
	apiServices         apiregistrationlisters.APIServiceLister
	apiServicesInformer cache.SharedIndexInformer
	remotes             *remoteAPIServices
	local, remote       *availability
	// byService maps "<namespace>/<name>" of a Service to the remote
	// APIServices that reference it, rebuilt when an APIService's
	// service changes (as upstream's cache).
	mu        sync.RWMutex
	byService map[string][]string
}

func (w *aggregatorWiring) addHandlers(apiServices, services, slices cache.SharedIndexInformer) error {
	if _, err := apiServices.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { w.apiServiceChanged(nil, obj) },
		UpdateFunc: func(old, obj any) {
			w.apiServiceChanged(old, obj)
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if a, ok := obj.(*apiregistrationv1.APIService); ok {
				w.remotes.remove(a.Name, "/apis/"+a.Spec.Group+"/"+a.Spec.Version)
				w.rebuildIndex()
			}
		},
	}); err != nil {
		return err
	}
	onService := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if svc, ok := obj.(*corev1.Service); ok {
			w.enqueueFor(svc.Namespace, svc.Name)
		}
	}
	if _, err := services.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onService, UpdateFunc: func(_, obj any) { onService(obj) }, DeleteFunc: onService,
	}); err != nil {
		return err
	}
	onSlice := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if s, ok := obj.(*discoveryv1.EndpointSlice); ok && s.Labels[discoveryv1.LabelServiceName] != "" {
			w.enqueueFor(s.Namespace, s.Labels[discoveryv1.LabelServiceName])
		}
	}
	_, err := slices.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onSlice, UpdateFunc: func(_, obj any) { onSlice(obj) }, DeleteFunc: onSlice,
	})
	return err
}

func (w *aggregatorWiring) apiServiceChanged(old, obj any) {
	a, ok := obj.(*apiregistrationv1.APIService)
	if !ok {
		return
	}
	w.remotes.set(a)
	prev, _ := old.(*apiregistrationv1.APIService)
	if prev == nil || !reflect.DeepEqual(prev.Spec.Service, a.Spec.Service) {
		w.rebuildIndex()
	}
	if a.Spec.Service == nil {
		w.local.queue.Add(a.Name)
	} else {
		w.remote.queue.Add(a.Name)
	}
}

// rebuildIndex recomputes byService from the lister. A Service event
// racing with it may enqueue an APIService once too often (harmless) or
// miss a new one (which its own event enqueues).
func (w *aggregatorWiring) rebuildIndex() {
	list, _ := w.apiServices.List(labels.Everything())
	idx := map[string][]string{}
	for _, a := range list {
		if ref := a.Spec.Service; ref != nil {
			key := ref.Namespace + "/" + ref.Name
			idx[key] = append(idx[key], a.Name)
		}
	}
	w.mu.Lock()
	w.byService = idx
	w.mu.Unlock()
}

func (w *aggregatorWiring) enqueueFor(namespace, name string) {
	w.mu.RLock()
	names := w.byService[namespace+"/"+name]
	w.mu.RUnlock()
	for _, n := range names {
		w.remote.queue.Add(n)
	}
}

// waitForFirstSync is upstream's apiservice-wait-for-first-sync: the
// server is not ready before every remote APIService that is Available
// has its proxy installed.
func (w *aggregatorWiring) waitForFirstSync(hc server.PostStartHookContext) error {
	if !waitForSync(hc.Context, w.apiServicesInformer) {
		return hc.Context.Err()
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if w.firstSyncDone() {
			return nil
		}
		select {
		case <-hc.Context.Done():
			return hc.Context.Err()
		case <-t.C:
		}
	}
}

func (w *aggregatorWiring) firstSyncDone() bool {
	list, err := w.apiServices.List(labels.Everything())
	if err != nil {
		return false
	}
	for _, a := range list {
		if a.Spec.Service != nil && v1helper.IsAPIServiceConditionTrue(a, apiregistrationv1.Available) && !w.remotes.handled(a.Name) {
			return false
		}
	}
	return true
}
