package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"sync"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/controllers/autoregister"
	"github.com/kapi-dev/kapi/internal/controllers/worker"
	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/server"
)

// discoveryRefreshInterval is how often upstream's aggregator fetches
// the discovery of a remote APIService that did not change.
const discoveryRefreshInterval = time.Minute

// aggregatorUser is who the aggregator's own requests to aggregated
// servers come from, as upstream.
var aggregatorUser = &user.DefaultInfo{Name: "system:kube-aggregator", Groups: []string{"system:masters"}}

// remoteDiscovery keeps the discovery of every remote APIService's group
// version in the discovery manager (upstream's DiscoveryAggregationController):
// fetched through the APIService's proxy, the aggregated document when
// the server serves one (with its ETag), else the legacy APIResourceList
// of the group version; fetched again on every change of the APIService
// and every minute; Stale, without resources, when a fetch fails.
type remoteDiscovery struct {
	manager *discovery.Manager
	lister  apiregistrationlisters.APIServiceLister
	// proxies are what fetches go through, as upstream's go through
	// the APIService's proxy handler.
	proxies *proxyCache
	routes  groupRoutes
	queue   workqueue.TypedRateLimitingInterface[string]
	logger  *slog.Logger

	mu    sync.Mutex
	cache map[string]fetchedDiscovery // by APIService name
	// routed are the groups whose /apis/<group> is routed here.
	routed map[string]bool
}

// groupRoutes serves /apis/<group> of remote groups.
type groupRoutes interface {
	Handle(path string, h http.Handler)
	Unregister(path string)
}

// fetchedDiscovery is the last successful fetch of an APIService.
type fetchedDiscovery struct {
	etag     string
	versions map[schema.GroupVersion]apidiscoveryv2.APIVersionDiscovery
}

// newDiscoveryQueue retries as upstream's discovery manager: from half
// a second, doubling up to the refresh interval.
func newDiscoveryQueue() workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](500*time.Millisecond, discoveryRefreshInterval),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "discovery-manager"},
	)
}

func (d *remoteDiscovery) sync(ctx context.Context, name string) error {
	gv := v1helper.APIServiceNameToGroupVersion(name)
	s, err := d.lister.Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if s == nil || s.Spec.Service == nil {
		d.forget(name, gv)
		return nil
	}
	entry, err := d.fetch(ctx, s, gv)
	entry.Freshness = apidiscoveryv2.DiscoveryFreshnessCurrent
	if err != nil {
		entry.Freshness = apidiscoveryv2.DiscoveryFreshnessStale
	}
	d.publish(gv, discovery.RemoteVersion{
		GroupPriority: s.Spec.GroupPriorityMinimum, VersionPriority: s.Spec.VersionPriority, Discovery: entry,
	})
	if err != nil {
		return fmt.Errorf("discovery of APIService %s: %w", name, err)
	}
	d.queue.AddAfter(name, discoveryRefreshInterval)
	return nil
}

// forget drops an APIService that is gone or turned local.
func (d *remoteDiscovery) forget(name string, gv schema.GroupVersion) {
	d.proxies.drop(name)
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.cache, name)
	d.manager.RemoveRemoteGroupVersion(gv)
	if d.routed[gv.Group] && !d.manager.HasRemoteGroup(gv.Group) {
		d.routes.Unregister("/apis/" + gv.Group)
		d.routes.Unregister("/apis/" + gv.Group + "/")
		delete(d.routed, gv.Group)
	}
}

// publish puts a remote version in discovery and serves /apis/<group>
// from the discovery manager; under mu, so that a concurrent forget of
// another version of the group cannot unroute it.
func (d *remoteDiscovery) publish(gv schema.GroupVersion, v discovery.RemoteVersion) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.manager.SetRemoteGroupVersion(gv, v)
	if d.routed[gv.Group] {
		return
	}
	d.routes.Handle("/apis/"+gv.Group, d.manager)
	d.routes.Handle("/apis/"+gv.Group+"/", d.manager)
	if d.routed == nil {
		d.routed = map[string]bool{}
	}
	d.routed[gv.Group] = true
}

// fetch returns the discovery entry of gv from the APIService's server;
// on error, an empty entry, as upstream.
func (d *remoteDiscovery) fetch(ctx context.Context, s *apiregistrationv1.APIService, gv schema.GroupVersion) (apidiscoveryv2.APIVersionDiscovery, error) {
	empty := apidiscoveryv2.APIVersionDiscovery{Version: gv.Version}
	h, err := d.proxies.get(s)
	if err != nil {
		return empty, err
	}
	d.mu.Lock()
	cached, haveCache := d.cache[s.Name]
	d.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	fetched, err := fetchDiscovery(ctx, h, gv, cached.etag, haveCache)
	switch {
	case err != nil:
		return empty, err
	case fetched == nil: // 304: what we have is current
		fetched = &cached
	}
	d.mu.Lock()
	d.cache[s.Name] = *fetched
	d.mu.Unlock()
	entry, ok := fetched.versions[gv]
	if !ok {
		entry = empty
	}
	return entry, nil
}

// fetchDiscovery GETs /apis from h as the aggregator asking for the
// aggregated document (If-None-Match etag when haveCache), falling back
// to the legacy /apis/<group>/<version> when the answer is anything but
// an aggregated document or 304. It returns nil on 304.
func fetchDiscovery(ctx context.Context, h http.Handler, gv schema.GroupVersion, etag string, haveCache bool) (*fetchedDiscovery, error) {
	rec := serveLocal(ctx, h, "/apis", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;q=0.9", etag)
	switch {
	case rec.Code == http.StatusNotModified && haveCache:
		return nil, nil
	case rec.Code == http.StatusServiceUnavailable:
		return nil, fmt.Errorf("service returned non-success response code: %d", rec.Code)
	case rec.Code == http.StatusOK && isAggregatedDiscovery(rec.Header().Get("Content-Type")):
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
			return nil, fmt.Errorf("decoding the aggregated discovery: %w", err)
		}
		out := &fetchedDiscovery{etag: rec.Header().Get("ETag"), versions: map[schema.GroupVersion]apidiscoveryv2.APIVersionDiscovery{}}
		for _, g := range list.Items {
			for _, v := range g.Versions {
				withResponseKinds(v.Resources)
				out.versions[schema.GroupVersion{Group: g.Name, Version: v.Version}] = v
			}
		}
		return out, nil
	}
	path := "/apis/" + gv.Group + "/" + gv.Version
	rec = serveLocal(ctx, h, path, "application/json", "")
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("failed to download legacy discovery for %s: %d %s", path, rec.Code, rec.Body.Bytes())
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", path, err)
	}
	resources, err := discovery.ToDiscoveryResources(list.APIResources)
	if err != nil {
		return nil, err
	}
	return &fetchedDiscovery{versions: map[schema.GroupVersion]apidiscoveryv2.APIVersionDiscovery{
		gv: {Version: gv.Version, Resources: resources},
	}}, nil
}

// withResponseKinds gives every resource and subresource a response
// kind, as upstream does: older clients crash on a nil one.
func withResponseKinds(rs []apidiscoveryv2.APIResourceDiscovery) {
	for i := range rs {
		if rs[i].ResponseKind == nil {
			rs[i].ResponseKind = &metav1.GroupVersionKind{}
		}
		for j := range rs[i].Subresources {
			if rs[i].Subresources[j].ResponseKind == nil {
				rs[i].Subresources[j].ResponseKind = &metav1.GroupVersionKind{}
			}
		}
	}
}

// isAggregatedDiscovery reports whether a Content-Type is the JSON
// aggregated discovery document.
func isAggregatedDiscovery(contentType string) bool {
	mt, params, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json" && params["g"] == "apidiscovery.k8s.io" && params["v"] == "v2" && params["as"] == "APIGroupDiscoveryList"
}

// addRemoteDiscoveryHook merges the discovery of remote APIServices into
// the server's discovery (upstream's "apiservice-discovery-controller"
// hook). Local groups keep their place; remote ones are placed by their
// APIServices' priorities.
func addRemoteDiscoveryHook(s *server.GenericServer, c *Config, in *apiInstaller, agg *aggregatorInformers, logger *slog.Logger) error {
	cert, err := loadProxyClientCert(c.Security.ProxyClientCertFile, c.Security.ProxyClientKeyFile)
	if err != nil {
		return err
	}
	in.discovery.SetLocalPriority(localGroupPriority(in.installed))
	return s.AddPostStartHook("apiservice-discovery-controller", func(hc server.PostStartHookContext) error {
		informer, resolver, err := agg.forHook(hc, "apiservice-discovery")
		if err != nil {
			return err
		}
		log := logger.With("controller", "apiservice-discovery")
		d := &remoteDiscovery{
			manager: in.discovery, lister: informer.Lister(),
			proxies: &proxyCache{resolver: resolver, clientCert: cert, logger: log},
			routes:  s.Handler.APIMux, queue: newDiscoveryQueue(), logger: log,
			cache: map[string]fetchedDiscovery{},
		}
		if _, err := informer.Informer().AddEventHandler(enqueueAPIService(d.queue)); err != nil {
			return err
		}
		go worker.RunSynced(hc.Context, d.queue, 2, log, []cache.InformerSynced{informer.Informer().HasSynced}, d.sync)
		return nil
	})
}

// localGroupPriority is the groupPriorityMinimum of the local groups:
// upstream's table for built-in ones, 1000 for custom resources', and
// the aggregator's own group first, as upstream lists it.
func localGroupPriority(installed []schema.GroupVersion) func(string) int32 {
	prio := map[string]int32{apiregistrationv1.GroupName: 20001}
	for _, gv := range installed {
		if a := autoregister.BuiltinAPIService(gv); a != nil {
			if _, ok := prio[gv.Group]; !ok {
				prio[gv.Group] = a.Spec.GroupPriorityMinimum
			}
		}
	}
	return func(group string) int32 {
		if p, ok := prio[group]; ok {
			return p
		}
		return 1000
	}
}

// enqueueAPIService queues an APIService by name on every change.
func enqueueAPIService(q workqueue.TypedInterface[string]) cache.ResourceEventHandlerFuncs {
	add := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if a, ok := obj.(*apiregistrationv1.APIService); ok {
			q.Add(a.Name)
		}
	}
	return cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: func(_, obj any) { add(obj) }, DeleteFunc: add}
}
