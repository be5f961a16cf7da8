package controlplane

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"

	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// serveLocal runs a GET of path through h as the aggregator and returns
// the recorded response.
func serveLocal(ctx context.Context, h http.Handler, path, accept, etag string) *httptest.ResponseRecorder {
	req, err := http.NewRequestWithContext(request.WithUser(ctx, aggregatorUser), http.MethodGet, path, nil)
	rec := httptest.NewRecorder()
	if err != nil {
		http.Error(rec, err.Error(), http.StatusInternalServerError)
		return rec
	}
	req.Header.Set("Accept", accept)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	h.ServeHTTP(rec, req)
	return rec
}

// proxyCache builds one proxy per APIService and keeps it while the
// APIService does not change, so that its connections are reused.
type proxyCache struct {
	resolver   serviceResolver
	clientCert *tls.Certificate
	logger     *slog.Logger

	mu      sync.Mutex
	proxies map[string]cachedProxy
}

type cachedProxy struct {
	resourceVersion string
	proxy           *remoteProxy
}

func (c *proxyCache) get(s *apiregistrationv1.APIService) (http.Handler, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.proxies[s.Name]; ok && p.resourceVersion == s.ResourceVersion {
		return p.proxy, nil
	}
	p, err := newRemoteProxy(s, c.resolver, c.clientCert, c.logger)
	if err != nil {
		return nil, err
	}
	if old, ok := c.proxies[s.Name]; ok {
		old.proxy.close()
	}
	if c.proxies == nil {
		c.proxies = map[string]cachedProxy{}
	}
	c.proxies[s.Name] = cachedProxy{resourceVersion: s.ResourceVersion, proxy: p}
	return p, nil
}

// drop closes and forgets the proxy of an APIService that is gone.
func (c *proxyCache) drop(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.proxies[name]; ok {
		p.proxy.close()
		delete(c.proxies, name)
	}
}

// etagCache is the last ETag of each APIService's document.
type etagCache struct {
	mu sync.Mutex
	m  map[string]string
}

func (c *etagCache) get(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[name]
}

// set records etag; empty forgets the APIService.
func (c *etagCache) set(name, etag string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if etag == "" {
		delete(c.m, name)
		return
	}
	c.m[name] = etag
}
