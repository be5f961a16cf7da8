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
			wantAbort: true,
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
			h := WithPanicRecovery(tt.handler, slog.New(slog.NewTextHandler(&logs, nil)))
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
