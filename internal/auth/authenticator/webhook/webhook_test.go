package webhook

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// fakeWebhook answers TokenReviews with what answer returns, or with the
// status code it returns when that is not 200.
type fakeWebhook struct {
	srv *httptest.Server

	mu      sync.Mutex
	reviews []authenticationv1.TokenReview
	answer  func(n int, r *authenticationv1.TokenReview) (int, authenticationv1.TokenReviewStatus)
}

func newFakeWebhook(t *testing.T, answer func(n int, r *authenticationv1.TokenReview) (int, authenticationv1.TokenReviewStatus)) *fakeWebhook {
	t.Helper()
	f := &fakeWebhook{answer: answer}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/authenticate" {
			http.Error(w, "unexpected "+req.Method+" "+req.URL.Path, http.StatusBadRequest)
			return
		}
		var review authenticationv1.TokenReview
		body, _ := io.ReadAll(req.Body)
		if err := json.Unmarshal(body, &review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.reviews = append(f.reviews, review)
		n := len(f.reviews)
		f.mu.Unlock()
		code, status := f.answer(n, &review)
		if code != http.StatusOK {
			http.Error(w, "webhook broke", code)
			return
		}
		review.Status = status
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeWebhook) calls() []authenticationv1.TokenReview {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]authenticationv1.TokenReview(nil), f.reviews...)
}

// kubeconfig writes the file --authentication-token-webhook-config-file
// names: the webhook's URL and its CA, inline.
func (f *fakeWebhook) kubeconfig(t *testing.T) string {
	t.Helper()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: f.srv.Certificate().Raw})
	data := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: webhook
  cluster:
    server: %s/authenticate
    certificate-authority-data: %s
users:
- name: kapi
  user: {}
contexts:
- name: webhook
  context: {cluster: webhook, user: kapi}
current-context: webhook
`, f.srv.URL, base64.StdEncoding.EncodeToString(ca))
	path := filepath.Join(t.TempDir(), "webhook.kubeconfig")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// fastBackoff retries as the default does, without the waiting.
var fastBackoff = wait.Backoff{Duration: time.Millisecond, Factor: 1.5, Steps: 3}

func allow(name string) authenticationv1.TokenReviewStatus {
	return authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{
		Username: name, UID: "uid-" + name, Groups: []string{"devs"},
		Extra: map[string]authenticationv1.ExtraValue{"scopes": {"read"}},
	}}
}

// byToken allows "good-*" tokens as the user after the dash, denies
// "denied" with an error, "unknown" without one, and breaks on "broken".
func byToken(_ int, r *authenticationv1.TokenReview) (int, authenticationv1.TokenReviewStatus) {
	switch t := r.Spec.Token; {
	case strings.HasPrefix(t, "good-"):
		return http.StatusOK, allow(strings.TrimPrefix(t, "good-"))
	case t == "denied":
		return http.StatusOK, authenticationv1.TokenReviewStatus{Error: "token revoked"}
	case t == "broken":
		return http.StatusInternalServerError, authenticationv1.TokenReviewStatus{}
	}
	return http.StatusOK, authenticationv1.TokenReviewStatus{}
}

func TestAuthenticateToken(t *testing.T) {
	wh := newFakeWebhook(t, byToken)
	a, err := newAuthenticator(wh.kubeconfig(t), 0, []string{"api"}, fastBackoff, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		token    string
		want     *authenticator.Response
		wantErr  string // "" and no response: no opinion
		wantHits int
	}{
		{name: "allowed", token: "good-alice", wantHits: 1, want: &authenticator.Response{User: &user.DefaultInfo{
			Name: "alice", UID: "uid-alice", Groups: []string{"devs"}, Extra: map[string][]string{"scopes": {"read"}}}}},
		{name: "denied with a reason", token: "denied", wantErr: "token revoked", wantHits: 1},
		{name: "denied", token: "unknown", wantHits: 1},
		{name: "webhook fails", token: "broken", wantErr: "webhook broke", wantHits: fastBackoff.Steps},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(wh.calls())
			resp, ok, err := a.AuthenticateToken(context.Background(), tt.token)
			switch {
			case tt.wantErr != "":
				if ok || err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ok=%v err=%v, want an error containing %q", ok, err, tt.wantErr)
				}
			case tt.want == nil:
				if ok || err != nil || resp != nil {
					t.Fatalf("resp=%v ok=%v err=%v, want no opinion", resp, ok, err)
				}
			default:
				if !ok || err != nil {
					t.Fatalf("ok=%v err=%v, want success", ok, err)
				}
				if diff := cmp.Diff(tt.want, resp); diff != "" {
					t.Errorf("response (-want +got):\n%s", diff)
				}
			}
			calls := wh.calls()[before:]
			if len(calls) != tt.wantHits {
				t.Errorf("webhook called %d times, want %d", len(calls), tt.wantHits)
			}
			for _, r := range calls {
				if r.APIVersion != "authentication.k8s.io/v1" || r.Kind != "TokenReview" || r.Spec.Token != tt.token ||
					!cmp.Equal(r.Spec.Audiences, []string{"api"}) {
					t.Errorf("review sent = %+v, want a v1 TokenReview of the token for the implicit audiences", r)
				}
			}
		})
	}
}

func TestRetryThenSuccess(t *testing.T) {
	wh := newFakeWebhook(t, func(n int, r *authenticationv1.TokenReview) (int, authenticationv1.TokenReviewStatus) {
		if n == 1 {
			return http.StatusServiceUnavailable, authenticationv1.TokenReviewStatus{}
		}
		return http.StatusOK, allow("bob")
	})
	a, err := newAuthenticator(wh.kubeconfig(t), 0, nil, fastBackoff, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if resp, ok, err := a.AuthenticateToken(context.Background(), "t"); !ok || err != nil || resp.User.GetName() != "bob" {
		t.Fatalf("resp=%v ok=%v err=%v, want bob after a retry", resp, ok, err)
	}
	if n := len(wh.calls()); n != 2 {
		t.Errorf("webhook called %d times, want 2", n)
	}
}

func TestAudiences(t *testing.T) {
	tests := []struct {
		name       string
		requested  []string // nil: none in the context
		answered   []string // status.audiences
		wantSent   []string
		wantAuds   []string
		wantUnauth bool
	}{
		{name: "none requested", wantSent: []string{"api"}},
		{name: "requested, webhook names none", requested: []string{"api", "x"}, wantSent: []string{"api", "x"}, wantAuds: []string{"api"}},
		{name: "requested, webhook names them", requested: []string{"vault"}, answered: []string{"vault"}, wantSent: []string{"vault"}, wantAuds: []string{"vault"}},
		{name: "requested, webhook names others", requested: []string{"vault"}, answered: []string{"api"}, wantSent: []string{"vault"}, wantUnauth: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wh := newFakeWebhook(t, func(int, *authenticationv1.TokenReview) (int, authenticationv1.TokenReviewStatus) {
				s := allow("carol")
				s.Audiences = tt.answered
				return http.StatusOK, s
			})
			a, err := newAuthenticator(wh.kubeconfig(t), 0, []string{"api"}, fastBackoff, time.Now)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if tt.requested != nil {
				ctx = authenticator.WithAudiences(ctx, tt.requested)
			}
			resp, ok, err := a.AuthenticateToken(ctx, "t")
			if err != nil || ok == tt.wantUnauth {
				t.Fatalf("ok=%v err=%v, want ok=%v", ok, err, !tt.wantUnauth)
			}
			if ok && !cmp.Equal(resp.Audiences, tt.wantAuds) {
				t.Errorf("audiences = %q, want %q", resp.Audiences, tt.wantAuds)
			}
			if sent := wh.calls()[0].Spec.Audiences; !cmp.Equal(sent, tt.wantSent) {
				t.Errorf("spec.audiences = %q, want %q", sent, tt.wantSent)
			}
		})
	}
}

func TestCache(t *testing.T) {
	wh := newFakeWebhook(t, byToken)
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	a, err := newAuthenticator(wh.kubeconfig(t), 2*time.Minute, []string{"api"}, fastBackoff, clock)
	if err != nil {
		t.Fatal(err)
	}
	vault := authenticator.WithAudiences(context.Background(), []string{"vault"})
	steps := []struct {
		name     string
		ctx      context.Context
		token    string
		advance  time.Duration
		wantHits int // total so far
		wantOK   bool
	}{
		{name: "first success asks", token: "good-alice", wantHits: 1, wantOK: true},
		{name: "second success is cached", token: "good-alice", wantHits: 1, wantOK: true},
		{name: "another token asks", token: "good-bob", wantHits: 2, wantOK: true},
		{name: "other audiences ask", ctx: vault, token: "good-alice", wantHits: 3},
		{name: "a failure asks", token: "unknown", wantHits: 4},
		{name: "a failure is cached", token: "unknown", wantHits: 4},
		{name: "an error asks", token: "broken", wantHits: 4 + fastBackoff.Steps},
		{name: "an error is not cached", token: "broken", wantHits: 4 + 2*fastBackoff.Steps},
		{name: "still cached within the TTL", token: "good-alice", advance: time.Minute, wantHits: 4 + 2*fastBackoff.Steps, wantOK: true},
		{name: "asks again after the TTL", token: "good-alice", advance: time.Minute + time.Second, wantHits: 5 + 2*fastBackoff.Steps, wantOK: true},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		ctx := s.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		resp, ok, _ := a.AuthenticateToken(ctx, s.token)
		if ok != s.wantOK {
			t.Errorf("%s: ok=%v, want %v", s.name, ok, s.wantOK)
		}
		if ok {
			// a caller changing its copy does not change the cache
			resp.User.(*user.DefaultInfo).Groups[0] = "changed"
		}
		if got := len(wh.calls()); got != s.wantHits {
			t.Errorf("%s: %d webhook calls so far, want %d", s.name, got, s.wantHits)
		}
	}
	resp, _, _ := a.AuthenticateToken(context.Background(), "good-alice")
	if g := resp.User.GetGroups(); !cmp.Equal(g, []string{"devs"}) {
		t.Errorf("cached groups = %q, want [devs]", g)
	}
}

func TestCacheTTLZeroDisables(t *testing.T) {
	wh := newFakeWebhook(t, byToken)
	a, err := New(wh.kubeconfig(t), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, ok, err := a.AuthenticateToken(context.Background(), "good-alice"); !ok || err != nil {
			t.Fatalf("ok=%v err=%v", ok, err)
		}
	}
	if n := len(wh.calls()); n != 3 {
		t.Errorf("webhook called %d times, want 3", n)
	}
}

// Cache keys separate the fields they hash.
func TestCacheKey(t *testing.T) {
	c := newCache(nil, time.Minute, time.Now)
	if k1, k2 := c.key("ab", []string{"c"}, true), c.key("a", []string{"bc"}, true); k1 == k2 {
		t.Error("keys of different token/audience splits collide")
	}
	if k1, k2 := c.key("a", nil, false), c.key("a", []string{}, true); k1 == k2 {
		t.Error("no audiences and an empty audience list share a key")
	}
}

func TestCacheBounded(t *testing.T) {
	c := newCache(authenticator.TokenFunc(func(context.Context, string) (*authenticator.Response, bool, error) {
		return nil, false, nil
	}), time.Minute, time.Now)
	for i := range maxCacheEntries + 10 {
		_, _, _ = c.AuthenticateToken(context.Background(), fmt.Sprint(i))
	}
	if n := len(c.entries); n > maxCacheEntries {
		t.Errorf("cache holds %d entries, want at most %d", n, maxCacheEntries)
	}
}

func TestRetriable(t *testing.T) {
	gr := schema.GroupResource{Resource: "tokenreviews"}
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{apierrors.NewInternalError(errors.New("x")), true},
		{apierrors.NewServiceUnavailable("x"), true},
		{apierrors.NewTooManyRequests("x", 1), true},
		{apierrors.NewGenericServerResponse(502, "POST", gr, "", "", 0, false), true},
		{apierrors.NewBadRequest("x"), false},
		{apierrors.NewUnauthorized("x"), false},
		{apierrors.NewNotFound(gr, ""), false},
		{errors.New("connection refused"), true},
		{context.Canceled, false},
		{fmt.Errorf("post: %w", context.DeadlineExceeded), false},
	} {
		if got := retriable(tt.err); got != tt.want {
			t.Errorf("retriable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("not: [a kubeconfig"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"empty path": "", "missing file": filepath.Join(dir, "nope"), "not YAML": bad} {
		if _, err := New(path, time.Minute, nil); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func BenchmarkCachedAuthenticateToken(b *testing.B) {
	c := newCache(authenticator.TokenFunc(func(context.Context, string) (*authenticator.Response, bool, error) {
		return &authenticator.Response{User: &user.DefaultInfo{Name: "x", Groups: []string{"a", "b"}}}, true, nil
	}), time.Minute, time.Now)
	ctx := authenticator.WithAudiences(context.Background(), []string{"api"})
	for b.Loop() {
		if _, ok, _ := c.AuthenticateToken(ctx, "a-token-of-some-length-0123456789"); !ok {
			b.Fatal("not ok")
		}
	}
}
