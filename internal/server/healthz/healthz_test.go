package healthz

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestInstallHandler(t *testing.T) {
	failing := NamedCheck("bad", func(*http.Request) error { return errors.New("disk on fire") })
	good := NamedCheck("good", func(*http.Request) error { return nil })
	tests := []struct {
		name     string
		checks   []Check
		url      string
		wantCode int
		wantBody string
	}{
		{"default ping", nil, "/healthz", 200, "ok"},
		{"default ping verbose", nil, "/healthz?verbose", 200, "[+]ping ok\nhealthz check passed\n"},
		{"all pass", []Check{PingCheck{}, good}, "/healthz", 200, "ok"},
		{"verbose", []Check{PingCheck{}, good}, "/healthz?verbose=1", 200, "[+]ping ok\n[+]good ok\nhealthz check passed\n"},
		{"failure is verbose", []Check{PingCheck{}, failing, good}, "/healthz", 500,
			"[+]ping ok\n[-]bad failed: reason withheld\n[+]good ok\nhealthz check failed\n"},
		{"exclude failing", []Check{PingCheck{}, failing}, "/healthz?exclude=bad&verbose", 200,
			"[+]ping ok\n[+]bad excluded: ok\nhealthz check passed\n"},
		{"exclude twice", []Check{PingCheck{}, failing}, "/healthz?exclude=bad&exclude=bad", 200, "ok"},
		{"exclude unknown", []Check{PingCheck{}}, "/healthz?exclude=zz&exclude=aa&verbose", 200,
			"[+]ping ok\nwarn: some health checks cannot be excluded: no matches for \"aa\",\"zz\"\nhealthz check passed\n"},
		{"exclude unknown while failing", []Check{failing}, "/healthz?exclude=nope", 500,
			"[-]bad failed: reason withheld\nwarn: some health checks cannot be excluded: no matches for \"nope\"\nhealthz check failed\n"},
		{"single check ok", []Check{PingCheck{}, failing}, "/healthz/ping", 200, "ok"},
		{"single check shows reason", []Check{PingCheck{}, failing}, "/healthz/bad", 500, "internal server error: disk on fire\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mux := http.NewServeMux()
			InstallHandler(mux, "/healthz", nil, tt.checks...)
			rec := httptest.NewRecorder()
			mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.url, nil))
			if rec.Code != tt.wantCode {
				t.Errorf("status = %d, want %d", rec.Code, tt.wantCode)
			}
			if got := rec.Body.String(); got != tt.wantBody {
				t.Errorf("body = %q, want %q", got, tt.wantBody)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}

func TestNameFromPath(t *testing.T) {
	for _, path := range []string{"/livez", "/readyz"} {
		mux := http.NewServeMux()
		InstallHandler(mux, path, nil)
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path+"?verbose", nil))
		want := "[+]ping ok\n" + path[1:] + " check passed\n"
		if got := rec.Body.String(); got != want {
			t.Errorf("GET %s?verbose = %q, want %q", path, got, want)
		}
	}
}

func TestShutdownCheck(t *testing.T) {
	ch := make(chan struct{})
	c := ShutdownCheck(ch)
	if c.Name() != "shutdown" {
		t.Errorf("Name() = %q, want shutdown", c.Name())
	}
	if err := c.Check(nil); err != nil {
		t.Errorf("before shutdown: %v", err)
	}
	close(ch)
	if err := c.Check(nil); err == nil || err.Error() != "process is shutting down" {
		t.Errorf("after shutdown: %v, want process is shutting down", err)
	}
}
