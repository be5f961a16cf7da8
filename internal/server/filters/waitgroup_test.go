package filters

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

func TestWithWaitGroupDraining(t *testing.T) {
	tests := []struct {
		name      string
		url       string
		draining  bool
		wantCode  int
		wantCount bool // whether the handler saw itself counted
	}{
		{"counted", "/api/v1/pods", false, 200, true},
		{"draining refuses", "/api/v1/pods", true, 503, false},
		{"draining exempts readyz", "/readyz", true, 200, false},
		{"draining exempts healthz check", "/healthz/ping", true, 200, false},
		{"long-running not counted", "/api/v1/pods?watch=true", false, 200, false},
		{"long-running served while draining", "/api/v1/pods?watch=true", true, 200, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wg := NewRequestWaitGroup()
			if tt.draining {
				wg.Close()
			}
			counted := false
			inner := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				counted = wg.InFlight() == 1
			})
			h := withInfo(WithWaitGroup(inner, request.DefaultLongRunningRequestCheck(), wg))
			rec := do(h, http.MethodGet, tt.url)
			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d", rec.Code, tt.wantCode)
			}
			if counted != tt.wantCount {
				t.Errorf("counted = %v, want %v", counted, tt.wantCount)
			}
			if tt.wantCode == 503 {
				s := decodeStatus(t, rec)
				if s.Reason != "ServiceUnavailable" || s.Message != "apiserver is shutting down" {
					t.Errorf("Status = %+v", s)
				}
				if got := rec.Header().Get("Retry-After"); got != "1" {
					t.Errorf("Retry-After = %q, want 1", got)
				}
			}
			if wg.InFlight() != 0 {
				t.Errorf("InFlight after the request = %d", wg.InFlight())
			}
		})
	}
}

func TestWithWaitGroupStopsLongRunning(t *testing.T) {
	wg := NewRequestWaitGroup()
	entered := make(chan struct{})
	h := withInfo(WithWaitGroup(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-r.Context().Done() // a watch ends when its context does
	}), request.DefaultLongRunningRequestCheck(), wg))
	done := make(chan struct{})
	go func() {
		defer close(done)
		do(h, http.MethodGet, "/api/v1/pods?watch=true")
	}()
	<-entered
	wg.StopLongRunning()
	<-done
}

func TestRequestWaitGroupWait(t *testing.T) {
	wg := NewRequestWaitGroup()
	if err := wg.Add(); err != nil {
		t.Fatal(err)
	}
	wg.Close()
	if err := wg.Add(); err == nil {
		t.Fatal("Add after Close succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := wg.Wait(ctx); err == nil {
		t.Fatal("Wait returned nil with a request in flight")
	}
	wg.Done()
	if err := wg.Wait(context.Background()); err != nil {
		t.Fatalf("Wait after Done: %v", err)
	}
}

func TestWithWaitGroupNeedsRequestInfo(t *testing.T) {
	rec := httptest.NewRecorder()
	WithWaitGroup(ok, nil, NewRequestWaitGroup()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	if rec.Code != 500 {
		t.Errorf("code = %d, want 500", rec.Code)
	}
}
