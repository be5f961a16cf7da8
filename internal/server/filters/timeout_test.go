package filters

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

func TestWithTimeout(t *testing.T) {
	tests := []struct {
		name        string
		url         string
		limit       time.Duration
		handler     func(release <-chan struct{}, late chan<- error) http.HandlerFunc
		wantCode    int
		wantMessage string
		wantAbort   bool
	}{
		{
			name: "finishes in time", url: "/api/v1/pods", limit: time.Hour,
			handler:  func(<-chan struct{}, chan<- error) http.HandlerFunc { return ok },
			wantCode: 200,
		},
		{
			name: "deadline passes", url: "/api/v1/pods?timeout=1ms", limit: time.Hour,
			handler:     blockUntilDone,
			wantCode:    504,
			wantMessage: "Timeout: request did not complete within the allotted timeout",
		},
		{
			name: "server limit applies", url: "/api/v1/pods?timeout=1h", limit: time.Millisecond,
			handler:  blockUntilDone,
			wantCode: 504,
		},
		{
			name: "bad timeout", url: "/api/v1/pods?timeout=soon", limit: time.Hour,
			handler:     func(<-chan struct{}, chan<- error) http.HandlerFunc { return ok },
			wantCode:    400,
			wantMessage: `invalid timeout specified in the request URL - time: invalid duration "soon"`,
		},
		{
			name: "long-running exempt", url: "/api/v1/pods?watch=true&timeout=1ms", limit: time.Millisecond,
			handler: func(<-chan struct{}, chan<- error) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					if _, has := r.Context().Deadline(); has {
						w.WriteHeader(http.StatusInternalServerError)
					}
				}
			},
			wantCode: 200,
		},
		{
			name: "deadline after the response started", url: "/api/v1/pods?timeout=1ms", limit: time.Hour,
			handler: func(release <-chan struct{}, _ chan<- error) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(http.StatusOK)
					<-r.Context().Done()
					<-release // so the deadline, not the handler, ends the request
				}
			},
			wantAbort: true,
		},
		{
			name: "handler panic is rethrown", url: "/api/v1/pods", limit: time.Hour,
			handler: func(<-chan struct{}, chan<- error) http.HandlerFunc {
				return func(http.ResponseWriter, *http.Request) { panic("boom") }
			},
			wantCode: 500, // WithPanicRecovery answers
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release, late := make(chan struct{}), make(chan error, 1)
			h := WithPanicRecovery(withInfo(WithTimeoutForNonLongRunningRequests(
				tt.handler(release, late), request.DefaultLongRunningRequestCheck(), tt.limit, nil)), nil, nil)
			var code int
			var body string
			aborted := func() (aborted bool) {
				defer func() {
					if v := recover(); v != nil {
						if err, _ := v.(error); !errors.Is(err, http.ErrAbortHandler) {
							t.Fatalf("panic %v", v)
						}
						aborted = true
					}
				}()
				rec := do(h, http.MethodGet, tt.url)
				code, body = rec.Code, rec.Body.String()
				if code != 200 {
					decodeStatus(t, rec)
				}
				return false
			}()
			close(release)
			if code == 504 {
				if err := <-late; !errors.Is(err, http.ErrHandlerTimeout) {
					t.Errorf("write after the timeout returned %v, want http.ErrHandlerTimeout", err)
				}
			}
			if aborted != tt.wantAbort {
				t.Fatalf("aborted = %v, want %v", aborted, tt.wantAbort)
			}
			if aborted {
				return
			}
			if code != tt.wantCode {
				t.Errorf("code = %d, want %d; body %s", code, tt.wantCode, body)
			}
			if tt.wantMessage != "" && !strings.Contains(body, `"message":"`+strings.ReplaceAll(tt.wantMessage, `"`, `\"`)+`"`) {
				t.Errorf("body %s lacks message %q", body, tt.wantMessage)
			}
		})
	}
}

// blockUntilDone is a slow handler: it outlives its deadline and writes
// once the test released it, after the timeout response went out.
func blockUntilDone(release <-chan struct{}, late chan<- error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		<-release
		w.Header().Set("X-Late", "1")
		_, err := w.Write([]byte("late"))
		late <- err
	}
}
