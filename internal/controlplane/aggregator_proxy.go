package controlplane

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// serviceResolver turns a Service reference into the URL of one of its
// endpoints.
type serviceResolver interface {
	ResolveEndpoint(namespace, name string, port int32) (*url.URL, error)
}

// remoteProxy serves the group version of one remote APIService: it
// sends the request, already authenticated and authorized by kapi, to an
// endpoint of the APIService's Service, with kapi's front-proxy client
// certificate and the user in the X-Remote-* headers.
type remoteProxy struct {
	namespace, name string
	port            int32
	resolver        serviceResolver
	transport       *http.Transport
	logger          *slog.Logger
	// available is the APIService's Available condition when the proxy
	// was built; requests to an unavailable one get 503, as upstream.
	available bool
}

// newRemoteProxy builds the proxy of s, which must have a service.
// clientCert is the front-proxy client certificate, if any.
func newRemoteProxy(s *apiregistrationv1.APIService, resolver serviceResolver, clientCert *tls.Certificate, logger *slog.Logger) (*remoteProxy, error) {
	svc := s.Spec.Service
	tlsConfig := &tls.Config{
		MinVersion: tls.VersionTLS12,
		// The serving certificate names the Service, as upstream verifies.
		ServerName:         svc.Name + "." + svc.Namespace + ".svc",
		InsecureSkipVerify: s.Spec.InsecureSkipTLSVerify, //nolint:gosec // the APIService asks for it
	}
	if len(s.Spec.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(s.Spec.CABundle) {
			return nil, errors.New("spec.caBundle holds no PEM certificate")
		}
		tlsConfig.RootCAs = pool
	}
	if clientCert != nil {
		tlsConfig.Certificates = []tls.Certificate{*clientCert}
	}
	return &remoteProxy{
		namespace: svc.Namespace, name: svc.Name, port: ptr.Deref(svc.Port, 443),
		resolver: resolver,
		// HTTP/1.1 only, so that upgraded connections (exec, port-forward)
		// pass through the reverse proxy.
		transport: &http.Transport{
			TLSClientConfig:     tlsConfig,
			TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
			MaxIdleConnsPerHost: 32,
			// The client's Accept-Encoding decides; a response passes
			// with its Content-Encoding and bytes as the server sent them.
			DisableCompression: true,
		},
		logger:    logger,
		available: v1helper.IsAPIServiceConditionTrue(s, apiregistrationv1.Available),
	}, nil
}

// close drops the idle connections of a proxy that is replaced.
func (p *remoteProxy) close() { p.transport.CloseIdleConnections() }

func (p *remoteProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u, ok := request.UserFrom(r.Context())
	if !ok {
		http.Error(w, "missing user", http.StatusInternalServerError)
		return
	}
	// Upstream's aggregator answers these in plain text, not a Status:
	// clients see a 503 without a body they can decode, which client-go
	// turns into ServiceUnavailable "the server is currently unable to
	// handle the request".
	if !p.available {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	target, err := p.resolver.ResolveEndpoint(p.namespace, p.name, p.port)
	if err != nil {
		p.logger.Debug("resolving the service of an APIService", "service", p.namespace+"/"+p.name, "err", err)
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			setIdentityHeaders(pr.Out.Header, u.GetName(), u.GetUID(), u.GetGroups(), u.GetExtra())
		},
		Transport:     p.transport,
		FlushInterval: -1,
		BufferPool:    proxyBuffers,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			p.logger.Debug("proxying to an APIService", "service", p.namespace+"/"+p.name, "err", err)
			// Upstream's responder writes the bare transport error.
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
		},
	}
	rp.ServeHTTP(w, r)
}

// proxyBuffers recycles the proxy's copy buffers: without them each
// proxied request allocates 32 KiB.
var proxyBuffers = &bufferPool{pool: sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}}

// bufferPool is an httputil.BufferPool over a sync.Pool of *[]byte.
type bufferPool struct{ pool sync.Pool }

func (b *bufferPool) Get() []byte { return *b.pool.Get().(*[]byte) }

func (b *bufferPool) Put(buf []byte) { b.pool.Put(&buf) }

// setIdentityHeaders replaces the credentials of the client's request
// with the identity kapi authenticated, in the headers upstream's
// front proxy sends (kapi publishes their names in
// extension-apiserver-authentication). X-Remote-Uid carries a non-empty
// uid, as kube-apiserver does with its RemoteRequestHeaderUID feature,
// on by default since 1.33.
func setIdentityHeaders(h http.Header, name, uid string, groups []string, extra map[string][]string) {
	h.Del("Authorization")
	for k := range h {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "impersonate-") || strings.HasPrefix(lk, "x-remote-") {
			delete(h, k)
		}
	}
	h.Set("X-Remote-User", name)
	if uid != "" {
		h.Set("X-Remote-Uid", uid)
	}
	for _, g := range groups {
		h.Add("X-Remote-Group", g)
	}
	for k, vs := range extra {
		key := "X-Remote-Extra-" + url.PathEscape(k)
		for _, v := range vs {
			h.Add(key, v)
		}
	}
}

// remoteAPIServices keeps one proxy on the aggregator's mux per remote
// APIService, under /apis/<group>/<version>.
type remoteAPIServices struct {
	mux interface {
		Handle(path string, h http.Handler)
		HandlePrefix(prefix string, h http.Handler)
		Unregister(path string)
	}
	resolver   serviceResolver
	clientCert *tls.Certificate
	logger     *slog.Logger
	mu         sync.Mutex
	// proxies are the proxies installed, by APIService name.
	proxies map[string]*proxySlot
	// failed are the remote APIServices no proxy could be built for.
	failed map[string]bool
}

// handled says whether the remote APIService name was seen: its proxy is
// installed or could not be built.
func (m *remoteAPIServices) handled(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.proxies[name] != nil || m.failed[name]
}

// proxyFor is the proxy installed for the APIService name, or nil.
func (m *remoteAPIServices) proxyFor(name string) *remoteProxy {
	m.mu.Lock()
	defer m.mu.Unlock()
	if slot := m.proxies[name]; slot != nil {
		return slot.Load()
	}
	return nil
}

// set installs, replaces or removes the proxy of s.
func (m *remoteAPIServices) set(s *apiregistrationv1.APIService) {
	m.mu.Lock()
	defer m.mu.Unlock()
	path := "/apis/" + s.Spec.Group + "/" + s.Spec.Version
	if s.Spec.Service == nil {
		m.removeLocked(s.Name, path)
		return
	}
	p, err := newRemoteProxy(s, m.resolver, m.clientCert, m.logger)
	if err != nil {
		m.logger.Error("cannot proxy to an APIService", "apiservice", s.Name, "err", err)
		m.removeLocked(s.Name, path)
		if m.failed == nil {
			m.failed = map[string]bool{}
		}
		m.failed[s.Name] = true
		return
	}
	delete(m.failed, s.Name)
	if slot := m.proxies[s.Name]; slot != nil {
		// An update: the path is the name's, registered already.
		slot.Swap(p).close()
		return
	}
	slot := &proxySlot{}
	slot.Store(p)
	m.mux.Handle(path, slot)
	m.mux.HandlePrefix(path+"/", slot)
	m.proxies[s.Name] = slot
}

// remove takes the proxy of the APIService name off the mux; requests go
// to the delegate again.
func (m *remoteAPIServices) remove(name, path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.removeLocked(name, path)
}

func (m *remoteAPIServices) removeLocked(name, path string) {
	delete(m.failed, name)
	slot := m.proxies[name]
	if slot == nil {
		return
	}
	m.mux.Unregister(path)
	m.mux.Unregister(path + "/")
	slot.Load().close()
	delete(m.proxies, name)
}

// proxySlot is what the mux serves for a remote APIService: registered
// once when the APIService is added, it serves the proxy of the
// APIService's latest version, swapped in by each update, as upstream's
// proxyHandler keeps its handling info. Registering the path again would
// log a duplicate registration on every status change.
type proxySlot struct{ atomic.Pointer[remoteProxy] }

func (s *proxySlot) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.Load().ServeHTTP(w, r) }

// loadProxyClientCert reads --proxy-client-cert-file and
// --proxy-client-key-file; both empty means no client certificate.
func loadProxyClientCert(certFile, keyFile string) (*tls.Certificate, error) {
	if certFile == "" && keyFile == "" {
		return nil, nil
	}
	if certFile == "" || keyFile == "" {
		return nil, errors.New("--proxy-client-cert-file and --proxy-client-key-file go together")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--proxy-client-cert-file: %w", err)
	}
	return &cert, nil
}
