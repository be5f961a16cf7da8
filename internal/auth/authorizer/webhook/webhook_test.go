package webhook

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// webhookServer answers SubjectAccessReviews by user name and counts the
// reviews it was sent.
type webhookServer struct {
	*httptest.Server
	mu      sync.Mutex
	calls   map[string]int
	last    authorizationv1.SubjectAccessReview
	failFor int // answer 500 to this many calls first
}

func newWebhookServer(t *testing.T) *webhookServer {
	t.Helper()
	w := &webhookServer{calls: map[string]int{}}
	w.Server = httptest.NewTLSServer(http.HandlerFunc(w.serve))
	t.Cleanup(w.Close)
	return w
}

func (w *webhookServer) serve(rw http.ResponseWriter, req *http.Request) {
	var review authorizationv1.SubjectAccessReview
	if req.Method != http.MethodPost || req.URL.Path != "/authorize" || json.NewDecoder(req.Body).Decode(&review) != nil ||
		review.APIVersion != "authorization.k8s.io/v1" || review.Kind != "SubjectAccessReview" ||
		req.Header.Get("Authorization") != "Bearer webhook-token" {
		http.Error(rw, "bad request", http.StatusBadRequest)
		return
	}
	w.mu.Lock()
	w.calls[review.Spec.User]++
	w.last = review
	fail := w.failFor > 0
	if fail {
		w.failFor--
	}
	w.mu.Unlock()
	if fail {
		http.Error(rw, "try later", http.StatusInternalServerError)
		return
	}
	switch review.Spec.User {
	case "allowed", "flaky":
		review.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "ok"}
	case "denied":
		review.Status = authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "denied by webhook"}
	case "both":
		review.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true, Denied: true, Reason: "confused"}
	case "refused":
		http.Error(rw, "no", http.StatusForbidden)
		return
	default:
		review.Status = authorizationv1.SubjectAccessReviewStatus{Reason: "no opinion here"}
	}
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(review)
}

func (w *webhookServer) lastSpec() authorizationv1.SubjectAccessReviewSpec {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last.Spec
}

func (w *webhookServer) count(name string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[name]
}

// writeKubeconfig points a kubeconfig at the server's /authorize.
func writeKubeconfig(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	return writeKubeconfigWithCA(t, srv, srv.Certificate().Raw)
}

func writeKubeconfigWithCA(t *testing.T, srv *httptest.Server, caDER []byte) string {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(caFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	kubeconfig := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: authz
  cluster:
    server: %s/authorize
    certificate-authority: %s
users:
- name: apiserver
  user:
    token: webhook-token
contexts:
- name: webhook
  context: {cluster: authz, user: apiserver}
current-context: webhook
`, srv.URL, caFile)
	path := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeClock is the cache's clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newTestAuthorizer builds the authorizer as New does, with no waiting
// between retries and a fake cache clock.
func newTestAuthorizer(t *testing.T, srv *httptest.Server, clock *fakeClock) *Authorizer {
	t.Helper()
	cfg, err := loadConfig(writeKubeconfig(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	var c cache.Clock // a nil *fakeClock must stay a nil interface
	if clock != nil {
		c = clock
	}
	a, err := newAuthorizer(cfg, DefaultAuthorizedTTL, DefaultUnauthorizedTTL, wait.Backoff{Steps: 3}, c)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func attrsFor(name string) authorizer.Attributes {
	return authorizer.Attributes{
		User: &user.DefaultInfo{Name: name, UID: "u1", Groups: []string{"g"}, Extra: map[string][]string{"k": {"v"}}},
		Verb: "get", Namespace: "ns", APIGroup: "apps", APIVersion: "v1", Resource: "deployments", Subresource: "scale", Name: "web",
		ResourceRequest: true,
	}
}

func TestAuthorize(t *testing.T) {
	tests := []struct {
		user       string
		want       authorizer.Decision
		wantReason string
		wantErr    string
	}{
		{user: "allowed", want: authorizer.DecisionAllow, wantReason: "ok"},
		{user: "denied", want: authorizer.DecisionDeny, wantReason: "denied by webhook"},
		{user: "nobody", want: authorizer.DecisionNoOpinion, wantReason: "no opinion here"},
		{user: "both", want: authorizer.DecisionDeny, wantReason: "confused", wantErr: "both allow and deny"},
		{user: "refused", want: authorizer.DecisionNoOpinion, wantErr: "webhook authorizer"},
	}
	srv := newWebhookServer(t)
	a := newTestAuthorizer(t, srv.Server, nil)
	for _, tt := range tests {
		t.Run(tt.user, func(t *testing.T) {
			d, reason, err := a.Authorize(context.Background(), attrsFor(tt.user))
			if d != tt.want || reason != tt.wantReason {
				t.Errorf("Authorize() = %v %q, want %v %q", d, reason, tt.want, tt.wantReason)
			}
			if (err != nil) != (tt.wantErr != "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestReviewSent(t *testing.T) {
	srv := newWebhookServer(t)
	a := newTestAuthorizer(t, srv.Server, nil)
	if _, _, err := a.Authorize(context.Background(), attrsFor("allowed")); err != nil {
		t.Fatal(err)
	}
	want := authorizationv1.SubjectAccessReviewSpec{
		User: "allowed", UID: "u1", Groups: []string{"g"}, Extra: map[string]authorizationv1.ExtraValue{"k": {"v"}},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "ns", Verb: "get", Group: "apps", Version: "v1", Resource: "deployments", Subresource: "scale", Name: "web"},
	}
	if diff := cmp.Diff(want, srv.lastSpec()); diff != "" {
		t.Errorf("spec sent (-want +got):\n%s", diff)
	}
	nonResource := authorizer.Attributes{User: &user.DefaultInfo{Name: "allowed"}, Verb: "get", Path: "/healthz"}
	if _, _, err := a.Authorize(context.Background(), nonResource); err != nil {
		t.Fatal(err)
	}
	wantNR := authorizationv1.SubjectAccessReviewSpec{User: "allowed", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}}
	if diff := cmp.Diff(wantNR, srv.lastSpec()); diff != "" {
		t.Errorf("non-resource spec sent (-want +got):\n%s", diff)
	}
}

func TestCache(t *testing.T) {
	tests := []struct {
		user string
		ttl  time.Duration
	}{
		{user: "allowed", ttl: DefaultAuthorizedTTL},
		{user: "denied", ttl: DefaultUnauthorizedTTL},
		{user: "nobody", ttl: DefaultUnauthorizedTTL},
	}
	for _, tt := range tests {
		t.Run(tt.user, func(t *testing.T) {
			srv := newWebhookServer(t)
			clock := &fakeClock{now: time.Unix(1000, 0)}
			a := newTestAuthorizer(t, srv.Server, clock)
			ask := func() authorizer.Decision {
				d, _, _ := a.Authorize(context.Background(), attrsFor(tt.user))
				return d
			}
			first := ask()
			clock.step(tt.ttl - time.Second)
			if got := ask(); got != first || srv.count(tt.user) != 1 {
				t.Fatalf("within the TTL: decision %v (first %v), %d calls, want 1", got, first, srv.count(tt.user))
			}
			clock.step(2 * time.Second)
			if got := ask(); got != first || srv.count(tt.user) != 2 {
				t.Fatalf("after the TTL: decision %v, %d calls, want 2", got, srv.count(tt.user))
			}
			// other attributes are another entry
			other := attrsFor(tt.user)
			other.Verb = "list"
			if _, _, err := a.Authorize(context.Background(), other); err != nil || srv.count(tt.user) != 3 {
				t.Fatalf("another verb: %d calls, err %v", srv.count(tt.user), err)
			}
		})
	}
}

func TestNoCacheOfFailuresOrHugeRequests(t *testing.T) {
	srv := newWebhookServer(t)
	a := newTestAuthorizer(t, srv.Server, &fakeClock{now: time.Unix(1000, 0)})
	for range 2 {
		_, _, _ = a.Authorize(context.Background(), attrsFor("refused"))
	}
	if n := srv.count("refused"); n != 2 {
		t.Errorf("failed calls: %d calls, want 2 (failures are not cached)", n)
	}
	huge := attrsFor("allowed")
	huge.Name = strings.Repeat("x", maxCachedAttrSize)
	for range 2 {
		_, _, _ = a.Authorize(context.Background(), huge)
	}
	if n := srv.count("allowed"); n != 2 {
		t.Errorf("huge request: %d calls, want 2 (not cached)", n)
	}
}

func TestZeroTTLDisablesCaching(t *testing.T) {
	srv := newWebhookServer(t)
	cfg, err := loadConfig(writeKubeconfig(t, srv.Server))
	if err != nil {
		t.Fatal(err)
	}
	a, err := newAuthorizer(cfg, 0, 0, wait.Backoff{Steps: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, _, _ = a.Authorize(context.Background(), attrsFor("allowed"))
	}
	if n := srv.count("allowed"); n != 2 {
		t.Errorf("%d calls, want 2", n)
	}
}

func TestRetry(t *testing.T) {
	tests := []struct {
		name      string
		failures  int
		want      authorizer.Decision
		wantCalls int
	}{
		{name: "recovers", failures: 2, want: authorizer.DecisionAllow, wantCalls: 3},
		{name: "gives up", failures: 5, want: authorizer.DecisionNoOpinion, wantCalls: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newWebhookServer(t)
			srv.failFor = tt.failures
			a := newTestAuthorizer(t, srv.Server, nil)
			d, _, err := a.Authorize(context.Background(), attrsFor("flaky"))
			if d != tt.want || (err != nil) != (tt.want == authorizer.DecisionNoOpinion) {
				t.Errorf("Authorize() = %v, %v", d, err)
			}
			if n := srv.count("flaky"); n != tt.wantCalls {
				t.Errorf("%d calls, want %d", n, tt.wantCalls)
			}
		})
	}
}

func TestNew(t *testing.T) {
	srv := newWebhookServer(t)
	a, err := New(writeKubeconfig(t, srv.Server), DefaultAuthorizedTTL, DefaultUnauthorizedTTL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err := a.Authorize(context.Background(), attrsFor("denied")); d != authorizer.DecisionDeny || err != nil {
		t.Errorf("Authorize() = %v, %v", d, err)
	}
	if _, err := New(filepath.Join(t.TempDir(), "missing"), time.Minute, time.Minute, nil); err == nil {
		t.Error("New() of a missing file succeeded")
	}
	_, _, incomplete, err := a.(authorizer.RuleResolver).RulesFor(context.Background(), &user.DefaultInfo{Name: "a"}, "ns")
	if !incomplete || !errors.Is(err, errNoRules) {
		t.Errorf("RulesFor() incomplete = %v, err = %v", incomplete, err)
	}
}

// roundTripperFunc is a RoundTripper made of a function.
type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestNewWrapsTransport: the reviews go through the wrapper New is given
// (the traced transport, with --tracing-config-file).
func TestNewWrapsTransport(t *testing.T) {
	srv := newWebhookServer(t)
	var sent []string
	wrap := func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			sent = append(sent, r.Method+" "+r.URL.Host)
			return rt.RoundTrip(r)
		})
	}
	a, err := New(writeKubeconfig(t, srv.Server), 0, 0, wrap)
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err := a.Authorize(context.Background(), attrsFor("allowed")); d != authorizer.DecisionAllow || err != nil {
		t.Fatalf("Authorize() = %v, %v", d, err)
	}
	if want := "POST " + srv.Listener.Addr().String(); len(sent) != 1 || sent[0] != want {
		t.Errorf("through the wrapper: %q, want [%q]", sent, want)
	}
}

func TestUntrustedServer(t *testing.T) {
	srv := newWebhookServer(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	otherCA, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(writeKubeconfigWithCA(t, srv.Server, otherCA), time.Minute, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d, _, err := a.Authorize(context.Background(), attrsFor("allowed")); d != authorizer.DecisionNoOpinion || err == nil {
		t.Errorf("Authorize() against an untrusted server = %v, %v", d, err)
	}
	if srv.count("allowed") != 0 {
		t.Error("the untrusted server was sent the review")
	}
}
