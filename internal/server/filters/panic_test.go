package filters

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWithPanicRecovery(t *testing.T) {
	tests := []struct {
		name      string
		handler   http.HandlerFunc
		wantCode  int
		wantAbort bool
		wantLog   bool
		// wantAborted: the aborted hook hears of it (a deliberate abort,
		// not a panic the recovery turned into one).
		wantAborted bool
	}{
		{
			name:     "panic before writing",
			handler:  func(http.ResponseWriter, *http.Request) { panic("boom") },
			wantCode: 500, wantLog: true,
		},
		{
			name: "panic after writing aborts",
			handler: func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusOK)
				panic("boom")
			},
			wantAbort: true, wantLog: true,
		},
		{
			name:      "abort handler passes through",
			handler:   func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) },
			wantAbort: true, wantAborted: true,
		},
		{
			name:     "no panic",
			handler:  func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) },
			wantCode: http.StatusTeapot,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			var abortedPaths []string
			h := WithPanicRecovery(tt.handler, slog.New(slog.NewTextHandler(&logs, nil)), func(r *http.Request) {
				abortedPaths = append(abortedPaths, r.URL.Path)
			})
			var rec *httptest.ResponseRecorder
			aborted := func() (aborted bool) {
				defer func() {
					if v := recover(); v != nil {
						err, _ := v.(error)
						if !errors.Is(err, http.ErrAbortHandler) {
							t.Fatalf("re-panicked with %v, want http.ErrAbortHandler", v)
						}
						aborted = true
					}
				}()
				rec = do(h, http.MethodGet, "/x")
				return false
			}()
			if aborted != tt.wantAbort {
				t.Fatalf("aborted = %v, want %v", aborted, tt.wantAbort)
			}
			if got := len(abortedPaths) == 1 && abortedPaths[0] == "/x"; got != tt.wantAborted || len(abortedPaths) > 1 {
				t.Errorf("aborted hook heard of %v, want /x: %v", abortedPaths, tt.wantAborted)
			}
			if !aborted {
				if rec.Code != tt.wantCode {
					t.Errorf("code = %d, want %d", rec.Code, tt.wantCode)
				}
				if tt.wantCode == 500 {
					s := decodeStatus(t, rec)
					if s.Reason != "InternalError" || s.Message != panicMessage {
						t.Errorf("Status = %+v", s)
					}
				}
			}
			gotLog := strings.Contains(logs.String(), "panic while serving")
			if gotLog != tt.wantLog {
				t.Errorf("logged = %v, want %v; log: %s", gotLog, tt.wantLog, logs.String())
			}
			if tt.wantLog && !strings.Contains(logs.String(), "panic_test.go") {
				t.Errorf("log has no stack pointing at the panic: %s", logs.String())
			}
		})
	}
}
