package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/rest"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/server/healthz"
)

const notFoundBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}` + "\n"

func text(s string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, s) })
}

func mustNew(t *testing.T, c *Config, name string, delegate DelegationTarget) *GenericServer {
	t.Helper()
	s, err := c.New(name, delegate)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestServerChain runs an outer server delegating to an inner one over TLS
// and checks what a client sees.
func TestServerChain(t *testing.T) {
	c := NewConfig()
	c.Authentication = tokenAuthenticator
	c.Authorization = denyBob
	c.Version = &version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.0-kapi"}
	c.LoopbackClientConfig = &rest.Config{Host: "https://loopback"}
	var innerRuns, outerRuns atomic.Int32
	var loopbackHost atomic.Value
	ts := startServer(t, c, func(c *Config) *GenericServer {
		inner := mustNew(t, c, "inner", NewNotFoundDelegate())
		inner.Handler.APIMux.HandlePrefix("/apis/inner.example.com/", text("inner api"))
		inner.Handler.NonAPIMux.Handle("/inner-only", text("inner non-api"))
		inner.AddPostStartHookOrDie("inner-hook", func(ctx PostStartHookContext) error {
			innerRuns.Add(1)
			loopbackHost.Store(ctx.LoopbackClientConfig.Host)
			return nil
		})
		outer := mustNew(t, c, "outer", inner)
		outer.Handler.APIMux.HandlePrefix("/apis/outer.example.com/", text("outer api"))
		outer.AddPostStartHookOrDie("outer-hook", func(PostStartHookContext) error {
			outerRuns.Add(1)
			return nil
		})
		if err := outer.AddReadyzChecks(healthz.NamedCheck("outer-ready", func(*http.Request) error { return nil })); err != nil {
			t.Fatal(err)
		}
		return outer
	})
	<-ts.prepared.ReadyCh()

	tests := []struct {
		name     string
		path     string
		token    string
		wantCode int
		wantBody string // exact unless it starts with "~", then a substring
	}{
		{"healthz", "/healthz", "alice", 200, "ok"},
		{"healthz verbose", "/healthz?verbose", "alice", 200,
			"[+]ping ok\n[+]poststarthook/inner-hook ok\n[+]poststarthook/outer-hook ok\nhealthz check passed\n"},
		{"livez verbose", "/livez?verbose", "alice", 200,
			"[+]ping ok\n[+]poststarthook/inner-hook ok\n[+]poststarthook/outer-hook ok\nlivez check passed\n"},
		{"readyz verbose", "/readyz?verbose&exclude=outer-ready", "alice", 200,
			"[+]ping ok\n[+]poststarthook/inner-hook ok\n[+]poststarthook/outer-hook ok\n[+]outer-ready excluded: ok\n[+]shutdown ok\nreadyz check passed\n"},
		{"single check", "/readyz/poststarthook/inner-hook", "alice", 200, "ok"},
		{"version", "/version", "alice", 200,
			"{\n  \"major\": \"1\",\n  \"minor\": \"37\",\n  \"gitVersion\": \"v1.37.0-kapi\",\n  \"gitCommit\": \"\",\n  \"gitTreeState\": \"\",\n  \"buildDate\": \"\",\n  \"goVersion\": \"\",\n  \"compiler\": \"\",\n  \"platform\": \"\"\n}"},
		{"own api path", "/apis/outer.example.com/v1/widgets", "alice", 200, "outer api"},
		{"delegated api path", "/apis/inner.example.com/v1/things", "alice", 200, "inner api"},
		{"delegated non-api path", "/inner-only", "alice", 200, "inner non-api"},
		{"unknown api path", "/apis/nothing.example.com/v1/x", "alice", 404, notFoundBody},
		{"unknown path", "/nothing", "alice", 404, notFoundBody},
		{"unauthenticated", "/healthz", "", 401,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}` + "\n"},
		{"forbidden path", "/healthz", "bob", 403,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"bob\" cannot get path \"/healthz\"","reason":"Forbidden","details":{},"code":403}` + "\n"},
		{"forbidden resource", "/apis/outer.example.com/v1/namespaces/ns/widgets/w", "bob", 403,
			`~"message":"widgets.outer.example.com \"w\" is forbidden: User \"bob\" cannot get resource \"widgets\" in API group \"outer.example.com\" in the namespace \"ns\""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body, header := ts.get(tt.path, tt.token)
			if code != tt.wantCode {
				t.Errorf("GET %s: code = %d, want %d; body %s", tt.path, code, tt.wantCode, body)
			}
			if want, ok := strings.CutPrefix(tt.wantBody, "~"); ok {
				if !strings.Contains(body, want) {
					t.Errorf("GET %s: body %s lacks %s", tt.path, body, want)
				}
			} else if body != tt.wantBody {
				t.Errorf("GET %s: body\n got %q\nwant %q", tt.path, body, tt.wantBody)
			}
			if header.Get("Audit-Id") == "" {
				t.Errorf("GET %s: no Audit-Id header", tt.path)
			}
		})
	}

	t.Run("index lists the chain", func(t *testing.T) {
		_, body, _ := ts.get("/", "alice")
		var index struct{ Paths []string }
		if err := json.Unmarshal([]byte(body), &index); err != nil {
			t.Fatalf("index %q: %v", body, err)
		}
		for _, p := range []string{"/apis/inner.example.com/", "/apis/outer.example.com/", "/healthz", "/healthz/poststarthook/inner-hook", "/inner-only", "/readyz/shutdown", "/version"} {
			if !containsString(index.Paths, p) {
				t.Errorf("index lacks %s: %v", p, index.Paths)
			}
		}
	})
	t.Run("http2", func(t *testing.T) {
		resp, err := ts.client.Get(ts.url + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.ProtoMajor != 2 {
			t.Errorf("protocol %s, want HTTP/2", resp.Proto)
		}
	})
	if n, m := innerRuns.Load(), outerRuns.Load(); n != 1 || m != 1 {
		t.Errorf("hooks ran inner=%d outer=%d times, want once each", n, m)
	}
	if h := loopbackHost.Load(); h != "https://loopback" {
		t.Errorf("hook saw loopback host %v", h)
	}
}

func containsString(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// TestFailingPostStartHook: a hook that fails keeps /readyz and /healthz
// failing and the server not ready.
func TestFailingPostStartHook(t *testing.T) {
	logs := newLogWatcher()
	c := NewConfig()
	c.Logger = slog.New(logs)
	failed := logs.seenCh("post-start hook failed")
	ts := startServer(t, c, func(c *Config) *GenericServer {
		s := mustNew(t, c, "only", NewNotFoundDelegate())
		s.AddPostStartHookOrDie("failing", func(PostStartHookContext) error { return errors.New("boom") })
		return s
	})
	<-failed

	code, body, _ := ts.get("/readyz", "")
	if want := "[+]ping ok\n[-]poststarthook/failing failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n"; code != 500 || body != want {
		t.Errorf("GET /readyz = %d %q, want 500 %q", code, body, want)
	}
	code, body, _ = ts.get("/readyz/poststarthook/failing", "")
	if want := "internal server error: failed: boom\n"; code != 500 || body != want {
		t.Errorf("GET /readyz/poststarthook/failing = %d %q, want 500 %q", code, body, want)
	}
	if code, _, _ := ts.get("/healthz", ""); code != 500 {
		t.Errorf("GET /healthz = %d, want 500", code)
	}
	select {
	case <-ts.prepared.ReadyCh():
		t.Error("ReadyCh closed although a post-start hook failed")
	default:
	}
}

// TestMaxInFlight: with one read-only slot taken, the next read is turned
// away with 429 and Retry-After.
func TestMaxInFlight(t *testing.T) {
	c := NewConfig()
	c.Authentication = tokenAuthenticator
	c.MaxRequestsInFlight = 1
	entered, release := make(chan struct{}), make(chan struct{})
	ts := startServer(t, c, func(c *Config) *GenericServer {
		s := mustNew(t, c, "only", NewNotFoundDelegate())
		s.Handler.NonAPIMux.Handle("/hold", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			close(entered)
			<-release
		}))
		return s
	})
	held := make(chan int)
	go func() {
		code, _, _ := ts.get("/hold", "alice")
		held <- code
	}()
	<-entered
	code, body, header := ts.get("/healthz", "alice")
	close(release)
	if code != 429 || header.Get("Retry-After") != "1" || !strings.Contains(body, `"reason":"TooManyRequests"`) {
		t.Errorf("GET /healthz while full = %d Retry-After=%q %s, want 429 TooManyRequests with Retry-After 1", code, header.Get("Retry-After"), body)
	}
	if code := <-held; code != 200 {
		t.Errorf("held request: %d, want 200", code)
	}
	if code, _, _ := ts.get("/healthz", "alice"); code != 200 {
		t.Errorf("GET /healthz after release = %d, want 200", code)
	}
}

// TestGracefulShutdown walks the termination phases: readyz fails during
// the delay while requests are still served, pre-shutdown hooks run, watches
// end, a request in flight completes, and then the listener is gone.
func TestGracefulShutdown(t *testing.T) {
	logs := newLogWatcher()
	clk := testingclock.NewFakeClock(time.Now())
	c := NewConfig()
	c.Logger = slog.New(logs)
	c.Clock = clk
	c.ShutdownDelayDuration = 10 * time.Second
	entered, release := make(chan struct{}), make(chan struct{})
	watching, watchErr := make(chan struct{}), make(chan error, 1)
	preShutdownRan := make(chan struct{})
	var hookCtxDone atomic.Bool
	hookCtx := make(chan context.Context, 1)
	ts := startServer(t, c, func(c *Config) *GenericServer {
		s := mustNew(t, c, "only", NewNotFoundDelegate())
		s.Handler.NonAPIMux.Handle("/hold", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			close(entered)
			<-release
			io.WriteString(w, "done")
		}))
		s.Handler.APIMux.Handle("/api/v1/pods", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			http.NewResponseController(w).Flush()
			close(watching)
			<-r.Context().Done()
			watchErr <- r.Context().Err()
		}))
		s.AddPostStartHookOrDie("controller", func(ctx PostStartHookContext) error {
			hookCtx <- ctx.Context
			return nil
		})
		if err := s.AddPreShutdownHook("deregister", func() error { close(preShutdownRan); return nil }); err != nil {
			t.Fatal(err)
		}
		return s
	})
	<-ts.prepared.ReadyCh()

	held := make(chan string, 1)
	go func() {
		code, body, _ := ts.get("/hold", "")
		held <- strings.Join([]string{http.StatusText(code), body}, " ")
	}()
	<-entered
	watchClosed := make(chan error, 1)
	go func() {
		resp, err := ts.client.Get(ts.url + "/api/v1/pods?watch=true")
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		watchClosed <- err
	}()
	<-watching

	ts.cancel()
	<-ts.prepared.signals.shutdownInitiated.done()
	if ctx := <-hookCtx; ctx.Err() == nil {
		// The hook context ends at shutdown initiation; wait for it.
		<-ctx.Done()
	}
	hookCtxDone.Store(true)

	code, body, _ := ts.get("/readyz", "")
	if want := "[+]ping ok\n[+]poststarthook/controller ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n"; code != 500 || body != want {
		t.Errorf("GET /readyz during the delay = %d %q, want 500 %q", code, body, want)
	}
	if code, _, _ := ts.get("/healthz", ""); code != 200 {
		t.Errorf("GET /healthz during the delay = %d, want 200", code)
	}
	select {
	case <-ts.prepared.signals.notAcceptingNewRequests.done():
		t.Fatal("stopped accepting requests before the shutdown delay elapsed")
	default:
	}

	for !clk.HasWaiters() {
		runtime.Gosched() // Run is about to start the delay timer
	}
	clk.Step(c.ShutdownDelayDuration)
	<-ts.prepared.signals.notAcceptingNewRequests.done()
	<-preShutdownRan

	if err := <-watchErr; !errors.Is(err, context.Canceled) {
		t.Errorf("watch context ended with %v, want context.Canceled", err)
	}
	if err := <-watchClosed; err != nil {
		t.Errorf("watch response: %v, want a clean end", err)
	}
	close(release)
	if got := <-held; got != "OK done" {
		t.Errorf("request in flight during shutdown got %q, want OK done", got)
	}
	if err := ts.stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
	if _, err := ts.client.Get(ts.url + "/healthz"); err == nil {
		t.Error("server still answers after Run returned")
	}
	if !hookCtxDone.Load() {
		t.Error("post-start hook context not cancelled")
	}
}
