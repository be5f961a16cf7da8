package controlplane

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientretry "k8s.io/client-go/util/retry"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/pki"
	"github.com/kapi-dev/kapi/internal/server/mux"
)

// seenRequest is what the test aggregated server records of a request.
type seenRequest struct {
	path   string
	header http.Header
}

// aggregatedServer is a stand-in for an aggregated API server written
// with plain net/http: TLS for api.wardle.svc, a client certificate
// signed by the front-proxy CA required, one group version.
type aggregatedServer struct {
	*httptest.Server
	servingCA []byte
	mu        sync.Mutex
	seen      []seenRequest
}

func startAggregatedServer(t *testing.T, frontProxyCA *pki.CA) *aggregatedServer {
	t.Helper()
	return startAggregatedServerAt(t, frontProxyCA, "")
}

// startAggregatedServerAt listens on addr (host:port), or on loopback
// when addr is empty.
func startAggregatedServerAt(t *testing.T, frontProxyCA *pki.CA, addr string) *aggregatedServer {
	return newAggregatedServer(t, frontProxyCA, addr, nil)
}

// newAggregatedServer starts the test aggregated server: TLS for
// api.wardle.svc from its own CA, requiring a client certificate of
// frontProxyCA. handler, when set, builds its handler around the
// server (the default is a.serve).
func newAggregatedServer(t *testing.T, frontProxyCA *pki.CA, addr string, handler func(a *aggregatedServer) http.Handler) *aggregatedServer {
	t.Helper()
	ca, err := pki.EnsureCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.EnsureServingCert(t.TempDir(), []string{"api.wardle.svc"})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	a := &aggregatedServer{servingCA: ca.CertPEM}
	a.Server = httptest.NewUnstartedServer(nil)
	a.Config.Handler = http.HandlerFunc(a.serve)
	if handler != nil {
		a.Config.Handler = handler(a)
	}
	if addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		a.Listener.Close()
		a.Listener = l
	}
	a.TLS = &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    frontProxyCA.CertPool(),
	}
	a.StartTLS()
	t.Cleanup(a.Close)
	return a
}

func (a *aggregatedServer) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.seen = append(a.seen, seenRequest{r.URL.Path, r.Header.Clone()})
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/apis/wardle.example.com/v1alpha1":
		_ = json.NewEncoder(w).Encode(metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "wardle.example.com/v1alpha1",
			APIResources: []metav1.APIResource{{Name: "flunders", Namespaced: true, Kind: "Flunder", Verbs: []string{"get", "list"}}},
		})
	case "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/f1/exec":
		serveEcho(w, r)
	case "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders":
		if r.URL.Query().Get("watch") == "true" {
			serveOneEvent(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"kind":"FlunderList","apiVersion":"wardle.example.com/v1alpha1","metadata":{},"items":[]}`))
	default:
		http.NotFound(w, r)
	}
}

func (a *aggregatedServer) requests() []seenRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]seenRequest(nil), a.seen...)
}

// registerAggregatedServer creates the Service wardle/api and the
// APIService pointing at it.
func registerAggregatedServer(t *testing.T, ctx context.Context, cs kubernetes.Interface, reg apiregistrationclient.Interface, a *aggregatedServer) {
	t.Helper()
	_, portStr, _ := net.SplitHostPort(a.Listener.Addr().String())
	port, _ := strconv.Atoi(portStr)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "wardle"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Endpoint addresses may not be loopback ones, so the Service is an
	// ExternalName one naming localhost, which the resolver follows.
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "wardle"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost"},
	}
	if _, err := cs.CoreV1().Services("wardle").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	apiService := &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1.wardle.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: "wardle.example.com", Version: "v1alpha1",
			Service:              &apiregistrationv1.ServiceReference{Namespace: "wardle", Name: "api", Port: ptr.To(int32(port))},
			CABundle:             a.servingCA,
			GroupPriorityMinimum: 1000, VersionPriority: 15,
		},
	}
	if _, err := reg.ApiregistrationV1().APIServices().Create(ctx, apiService, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// newFrontProxy makes a front-proxy CA and client certificate and returns
// the CA with the server option that presents the certificate.
func newFrontProxy(t *testing.T) (*pki.CA, func(*Config)) {
	t.Helper()
	dir := t.TempDir()
	ca, err := pki.EnsureCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ca.EnsureClientCert(dir, "front-proxy-client", "front-proxy-client", nil); err != nil {
		t.Fatal(err)
	}
	return ca, func(c *Config) {
		c.Security.ProxyClientCertFile = filepath.Join(dir, "front-proxy-client.crt")
		c.Security.ProxyClientKeyFile = filepath.Join(dir, "front-proxy-client.key")
	}
}

// TestAggregatorProxy pins the proxy to a remote APIService: a request
// kapi authenticated and authorized reaches the aggregated server over
// TLS verified with the APIService's caBundle, presenting the front-proxy
// client certificate, with the user in X-Remote-User and X-Remote-Group
// and no Authorization header; a user RBAC does not allow is answered 403
// by kapi and never reaches the server.
func TestAggregatorProxy(t *testing.T) {
	frontCA, withFrontProxy := newFrontProxy(t)
	a := startAggregatedServer(t, frontCA)
	s := startServer(t, "memory", withoutControllers, withFrontProxy)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	registerAggregatedServer(t, ctx, cs, apiregistrationclient.NewForConfigOrDie(s.restCfg), a)

	const path = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders"
	var body []byte
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		b, err := cs.CoreV1().RESTClient().Get().AbsPath(path).DoRaw(ctx)
		if apierrors.IsNotFound(err) || apierrors.IsServiceUnavailable(err) {
			return false, nil // the proxy is not installed yet
		}
		body = b
		return err == nil, err
	})
	if err != nil {
		t.Fatalf("GET %s through the aggregator: %v", path, err)
	}
	var list metav1.PartialObjectMetadataList
	if err := json.Unmarshal(body, &list); err != nil || list.Kind != "FlunderList" {
		t.Errorf("proxied body %s (%v)", body, err)
	}
	// The availability checks' discovery GETs reach the server at any
	// time; the proxied request is the last one for its path.
	var last seenRequest
	for _, r := range a.requests() {
		if r.path == path {
			last = r
		}
	}
	if last.path != path {
		t.Fatalf("the server never saw %s: %v", path, a.requests())
	}
	if got := last.header.Get("X-Remote-User"); got == "" {
		t.Errorf("X-Remote-User missing: %v", last.header)
	}
	groups := last.header.Values("X-Remote-Group")
	if !containsAll(groups, "system:masters", "system:authenticated") {
		t.Errorf("X-Remote-Group = %v, want system:masters and system:authenticated", groups)
	}
	if last.header.Get("Authorization") != "" {
		t.Error("the client's Authorization header reached the aggregated server")
	}

	reg := apiregistrationclient.NewForConfigOrDie(s.restCfg)
	got, err := reg.ApiregistrationV1().APIServices().Get(ctx, "v1alpha1.wardle.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := v1helper.GetAPIServiceConditionByType(got, apiregistrationv1.Available); c == nil || c.Status != apiregistrationv1.ConditionTrue || c.Reason != "Passed" {
		t.Errorf("Available condition %+v, want True Passed", c)
	}

	alice := rest.CopyConfig(s.restCfg)
	alice.Impersonate = rest.ImpersonationConfig{UserName: "alice"}
	_, err = kubernetes.NewForConfigOrDie(alice).CoreV1().RESTClient().Get().AbsPath(path).DoRaw(ctx)
	if !apierrors.IsForbidden(err) {
		t.Errorf("alice's GET: %v, want 403", err)
	}
	for _, r := range a.requests() {
		if r.header.Get("X-Remote-User") == "alice" {
			t.Error("alice's request reached the aggregated server")
		}
	}

	// A server that stops answering fails the discovery check (checked
	// again at once on a change of the APIService), and its group
	// version gets 503.
	a.Close()
	// The availability controller may write the status meanwhile.
	err = clientretry.RetryOnConflict(clientretry.DefaultRetry, func() error {
		cur, err := reg.ApiregistrationV1().APIServices().Get(ctx, got.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Labels = map[string]string{"touched": "yes"}
		_, err = reg.ApiregistrationV1().APIServices().Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		cur, err := reg.ApiregistrationV1().APIServices().Get(ctx, got.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := v1helper.GetAPIServiceConditionByType(cur, apiregistrationv1.Available)
		return c != nil && c.Status == apiregistrationv1.ConditionFalse && c.Reason == "FailedDiscoveryCheck", nil
	})
	if err != nil {
		t.Fatalf("waiting for FailedDiscoveryCheck: %v", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := cs.CoreV1().RESTClient().Get().AbsPath(path).DoRaw(ctx)
		return apierrors.IsServiceUnavailable(err), nil
	})
	if err != nil {
		t.Errorf("GET of an unavailable APIService's group version: want 503: %v", err)
	}
}

func containsAll(have []string, want ...string) bool {
	set := map[string]bool{}
	for _, h := range have {
		set[h] = true
	}
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return true
}

// TestRemoteAPIServicesUpdateSwapsProxy: an update of a remote
// APIService (its Available condition turning true, here) swaps the proxy
// behind the path registered when the APIService was added, as
// upstream's proxyHandler does: the mux keeps one registration, logs no
// "duplicate path registration" and serves the new proxy at once.
func TestRemoteAPIServicesUpdateSwapsProxy(t *testing.T) {
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("from the aggregated server"))
	}))
	defer backend.Close()
	u, err := url.Parse(backend.URL)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	m := mux.NewPathRecorderMux("test", slog.New(slog.NewTextHandler(&logs, nil)))
	remotes := &remoteAPIServices{mux: m, resolver: fixedResolver{url: u}, logger: slog.New(slog.DiscardHandler), proxies: map[string]*proxySlot{}}
	defer remotes.remove("v1.example.com", "/apis/example.com/v1")
	svc := &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: "example.com", Version: "v1", InsecureSkipTLSVerify: true,
			Service: &apiregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptr.To[int32](443)},
		},
	}
	get := func() int {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/apis/example.com/v1/widgets", nil)
		m.ServeHTTP(rec, req.WithContext(request.WithUser(req.Context(), &user.DefaultInfo{Name: "alice"})))
		return rec.Code
	}

	remotes.set(svc)
	if code := get(); code != http.StatusServiceUnavailable {
		t.Errorf("before Available: status %d, want 503", code)
	}
	available := svc.DeepCopy()
	available.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue}}
	remotes.set(available)
	if code := get(); code != http.StatusOK {
		t.Errorf("once Available: status %d, want 200", code)
	}
	if strings.Contains(logs.String(), "duplicate path registration") {
		t.Errorf("an APIService update registered its path again:\n%s", logs.String())
	}
}
