package filters

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// TestWithRetryAfter pins --shutdown-send-retry-after: nothing changes
// before draining; then 429, Retry-After: 5, Connection: close and
// upstream's message, except for probes, /metrics and loopback clients.
func TestWithRetryAfter(t *testing.T) {
	for _, c := range []struct {
		name      string
		enabled   bool
		draining  bool
		path, ua  string
		wantCode  int
		wantRetry string
	}{
		{"not draining", true, false, "/api/v1/pods", "", 200, ""},
		{"draining", true, true, "/api/v1/pods", "kubectl/v1.37", 429, "5"},
		{"disabled", false, true, "/api/v1/pods", "", 200, ""},
		{"readyz", true, true, "/readyz", "", 200, ""},
		{"livez check", true, true, "/livez/ping", "", 200, ""},
		{"healthz", true, true, "/healthz", "", 200, ""},
		{"metrics", true, true, "/metrics", "", 200, ""},
		{"kapi loopback", true, true, "/api/v1/pods", "kapi/namespace-controller", 200, ""},
		{"kube-apiserver loopback", true, true, "/api/v1/pods", "kube-apiserver/v1.37.0 (linux/amd64)", 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			wg := NewRequestWaitGroup()
			if c.draining {
				wg.Close()
			}
			req := httptest.NewRequest("GET", c.path, nil)
			req.Header.Set("User-Agent", c.ua)
			rec := httptest.NewRecorder()
			WithRetryAfter(ok, c.enabled, wg).ServeHTTP(rec, req)
			if rec.Code != c.wantCode || rec.Header().Get("Retry-After") != c.wantRetry {
				t.Fatalf("%d Retry-After %q, want %d %q", rec.Code, rec.Header().Get("Retry-After"), c.wantCode, c.wantRetry)
			}
			if c.wantCode == 429 {
				if got := rec.Header().Get("Connection"); got != "close" {
					t.Errorf("Connection = %q, want close", got)
				}
				if got := strings.TrimSpace(rec.Body.String()); got != retryAfterMessage {
					t.Errorf("body %q, want %q", got, retryAfterMessage)
				}
			}
		})
	}
}

// TestWithWaitGroupExemptsLoopback: once draining, the server's own
// clients are still served, as upstream exempts them in both filters.
func TestWithWaitGroupExemptsLoopback(t *testing.T) {
	wg := NewRequestWaitGroup()
	wg.Close()
	h := withInfo(WithWaitGroup(ok, nil, wg))
	for ua, want := range map[string]int{"kapi/garbage-collector": 200, "kubectl/v1.37": 503} {
		req := httptest.NewRequest("GET", "/api/v1/pods", nil)
		req.Header.Set("User-Agent", ua)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("%s: %d, want %d", ua, rec.Code, want)
		}
	}
}

// TestWithProbabilisticGoaway: only HTTP/2 requests, only below the
// chance, get Connection: close (Go's HTTP/2 server turns it into GOAWAY).
func TestWithProbabilisticGoaway(t *testing.T) {
	for _, c := range []struct {
		name   string
		chance float64
		random float64
		proto  int
		want   string
	}{
		{"http2 below chance", 0.02, 0.01, 2, "close"},
		{"http2 above chance", 0.02, 0.5, 2, ""},
		{"http1", 0.02, 0.01, 1, ""},
		{"off", 0, 0, 2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/api/v1/pods", nil)
			req.ProtoMajor = c.proto
			rec := httptest.NewRecorder()
			withGoaway(ok, c.chance, func() float64 { return c.random }).ServeHTTP(rec, req)
			if got := rec.Header().Get("Connection"); got != c.want || rec.Code != 200 {
				t.Errorf("Connection %q code %d, want %q 200", got, rec.Code, c.want)
			}
		})
	}
}

// TestWithCORS pins upstream's headers, the 204 preflight answered
// without calling next (so without authentication), and unmatched or
// absent origins passed through unchanged.
func TestWithCORS(t *testing.T) {
	allowed, err := CompileOrigins([]string{`//example\.com(:|$)`})
	if err != nil {
		t.Fatal(err)
	}
	unauthenticated := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) })
	h := WithCORS(unauthenticated, allowed)
	for _, c := range []struct {
		name, method, origin string
		wantCode             int
		wantAllowOrigin      string
	}{
		{"preflight", "OPTIONS", "https://example.com", 204, "https://example.com"},
		{"actual request", "GET", "https://example.com:8443", 401, "https://example.com:8443"},
		{"other origin", "OPTIONS", "https://example.com.evil.org", 401, ""},
		{"no origin", "GET", "", 401, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, "/api", nil)
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != c.wantCode || rec.Header().Get("Access-Control-Allow-Origin") != c.wantAllowOrigin {
				t.Fatalf("%d %q, want %d %q", rec.Code, rec.Header().Get("Access-Control-Allow-Origin"), c.wantCode, c.wantAllowOrigin)
			}
			if c.wantAllowOrigin == "" {
				return
			}
			for k, v := range map[string]string{
				"Access-Control-Allow-Methods":     "POST, GET, OPTIONS, PUT, DELETE, PATCH",
				"Access-Control-Allow-Headers":     "Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since",
				"Access-Control-Expose-Headers":    "Date",
				"Access-Control-Allow-Credentials": "true",
			} {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
	if _, err := CompileOrigins([]string{"(unclosed"}); err == nil {
		t.Error("an invalid pattern compiled")
	}
	if WithCORS(ok, []*regexp.Regexp{}) == nil {
		t.Error("no patterns: want next")
	}
}

// TestStopLongRunningPaced: watches end one at a time on the clock, and
// the ones left end at once when the grace period's context ends; a watch
// that starts afterwards ends at once.
func TestStopLongRunningPaced(t *testing.T) {
	wg := NewRequestWaitGroup()
	clk := clocktesting.NewFakeClock(time.Now())
	const n = 3
	var ctxs []context.Context
	for range n {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		defer wg.long.track(cancel)()
		ctxs = append(ctxs, ctx)
	}
	ended := func() int {
		k := 0
		for _, c := range ctxs {
			if c.Err() != nil {
				k++
			}
		}
		return k
	}
	graceCtx, endGrace := context.WithCancel(context.Background())
	done := make(chan struct{})
	// Three watches over 1s is below 200/s: one every 5ms.
	go func() { defer close(done); wg.StopLongRunningPaced(graceCtx, clk, time.Second) }()
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	if got := ended(); got != 1 {
		t.Fatalf("%d ended before the clock moved, want 1", got)
	}
	clk.Step(5 * time.Millisecond)
	for ended() < 2 {
		time.Sleep(time.Millisecond)
	}
	endGrace()
	<-done
	if got := ended(); got != n {
		t.Fatalf("%d ended after the grace period, want %d", got, n)
	}
	late, cancel := context.WithCancel(context.Background())
	defer wg.long.track(cancel)()
	if late.Err() == nil {
		t.Error("a watch started after the stop is not ended")
	}
}
