package controlplane

import (
	"context"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/controllers/worker"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi"
	"github.com/kapi-dev/kapi/internal/server"
)

// openAPIRefreshInterval is how often upstream's OpenAPI controllers
// download an unchanged aggregated server's documents again.
const openAPIRefreshInterval = time.Minute

// remoteOpenAPI keeps the OpenAPI documents of remote APIServices in the
// server's (upstream's "apiservice-openapi-controller" for v2 and
// "apiservice-openapiv3-controller" for v3, one instance each): v2 is
// downloaded through the APIService's proxy (with its ETag), filtered
// to the group version and merged; v3 lists the server's documents in
// the index and proxies them.
type remoteOpenAPI struct {
	service *openapi.Service
	lister  apiregistrationlisters.APIServiceLister
	proxies *proxyCache
	queue   workqueue.TypedRateLimitingInterface[string]
	// v3 selects the v3 controller.
	v3 bool
	// etags are the last v2 ETag per APIService name; only the workers
	// of one queue touch an APIService at a time.
	etags *etagCache
}

func (o *remoteOpenAPI) sync(ctx context.Context, name string) error {
	s, err := o.lister.Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if s == nil || s.Spec.Service == nil {
		o.remove(name)
		return nil
	}
	h, err := o.proxies.get(s)
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if o.v3 {
			err = o.syncV3(ctx, s, h)
		} else {
			err = o.syncV2(ctx, s, h)
		}
	}
	if err != nil {
		return fmt.Errorf("OpenAPI of APIService %s: %w", name, err)
	}
	o.queue.AddAfter(name, openAPIRefreshInterval)
	return nil
}

func (o *remoteOpenAPI) remove(name string) {
	o.proxies.drop(name)
	o.etags.set(name, "")
	if o.v3 {
		o.service.RemoveRemoteV3(name)
	} else {
		o.service.RemoveRemoteV2(name)
	}
}

// syncV2 downloads /openapi/v2; a server without one (404) or a failed
// download takes the APIService's part out, as upstream.
func (o *remoteOpenAPI) syncV2(ctx context.Context, s *apiregistrationv1.APIService, h http.Handler) error {
	etag := o.etags.get(s.Name)
	rec := serveLocal(ctx, h, "/openapi/v2", "application/json", etag)
	switch {
	case rec.Code == http.StatusNotModified && etag != "":
		return nil
	case rec.Code == http.StatusNotFound:
		o.remove(s.Name)
		return nil
	case rec.Code != http.StatusOK:
		o.remove(s.Name)
		return fmt.Errorf("downloading /openapi/v2: status %d", rec.Code)
	}
	var doc spec.Swagger
	if err := doc.UnmarshalJSON(rec.Body.Bytes()); err != nil {
		o.remove(s.Name)
		return fmt.Errorf("decoding /openapi/v2: %w", err)
	}
	filtered, err := openapi.FilterV2(&doc, s.Spec.Group, s.Spec.Version).MarshalJSON()
	if err != nil {
		return err
	}
	etag = rec.Header().Get("ETag")
	version := etag
	if version == "" {
		version = fmt.Sprintf("%X", sha512.Sum512(filtered))
	}
	o.etags.set(s.Name, etag)
	o.service.SetRemoteV2(openapi.RemoteV2{
		Name: s.Name, Group: s.Spec.Group,
		GroupPriority: s.Spec.GroupPriorityMinimum, VersionPriority: s.Spec.VersionPriority,
		JSON: filtered, Version: version,
	})
	return nil
}

// syncV3 reads the server's /openapi/v3 index and lists its documents.
func (o *remoteOpenAPI) syncV3(ctx context.Context, s *apiregistrationv1.APIService, h http.Handler) error {
	rec := serveLocal(ctx, h, "/openapi/v3", "application/json", "")
	switch {
	case rec.Code == http.StatusNotFound:
		// Upstream converts the v2 document of such a server; kapi
		// lists nothing for it.
		o.service.RemoveRemoteV3(s.Name)
		return nil
	case rec.Code != http.StatusOK:
		o.service.RemoveRemoteV3(s.Name)
		return fmt.Errorf("downloading /openapi/v3: status %d", rec.Code)
	}
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &index); err != nil {
		o.service.RemoveRemoteV3(s.Name)
		return fmt.Errorf("decoding /openapi/v3: %w", err)
	}
	paths := make(map[string]string, len(index.Paths))
	for key, e := range index.Paths {
		paths[key] = e.ServerRelativeURL
	}
	o.service.SetRemoteV3(s.Name, paths, h)
	return nil
}

// addRemoteOpenAPIHooks merges remote APIServices' OpenAPI documents
// into the server's, with upstream's two hooks.
func addRemoteOpenAPIHooks(s *server.GenericServer, c *Config, in *apiInstaller, agg *aggregatorInformers, logger *slog.Logger) error {
	cert, err := loadProxyClientCert(c.Security.ProxyClientCertFile, c.Security.ProxyClientKeyFile)
	if err != nil {
		return err
	}
	in.openapi.SetLogger(logger.With("component", "openapi"))
	for _, v3 := range []bool{false, true} {
		name := "apiservice-openapi-controller"
		if v3 {
			name = "apiservice-openapiv3-controller"
		}
		if err := s.AddPostStartHook(name, func(hc server.PostStartHookContext) error {
			informer, resolver, err := agg.forHook(hc, name)
			if err != nil {
				return err
			}
			log := logger.With("controller", name)
			o := &remoteOpenAPI{
				service: in.openapi, lister: informer.Lister(), v3: v3, etags: &etagCache{m: map[string]string{}},
				proxies: &proxyCache{resolver: resolver, clientCert: cert, logger: log},
				queue: workqueue.NewTypedRateLimitingQueueWithConfig(
					workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Hour),
					workqueue.TypedRateLimitingQueueConfig[string]{Name: name}),
			}
			if _, err := informer.Informer().AddEventHandler(enqueueAPIService(o.queue)); err != nil {
				return err
			}
			go worker.RunSynced(hc.Context, o.queue, 1, log, []cache.InformerSynced{informer.Informer().HasSynced}, o.sync)
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}
