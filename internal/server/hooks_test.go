package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/internal/server/healthz"
)

func TestHookRegistration(t *testing.T) {
	nop := func(PostStartHookContext) error { return nil }
	nopPre := func() error { return nil }
	tests := []struct {
		name    string
		add     func(s *GenericServer) error
		wantErr string
	}{
		{"ok", func(s *GenericServer) error { return s.AddPostStartHook("a", nop) }, ""},
		{"no name", func(s *GenericServer) error { return s.AddPostStartHook("", nop) }, "needs a name"},
		{"nil func", func(s *GenericServer) error { return s.AddPostStartHook("a", nil) }, "nil function"},
		{"duplicate", func(s *GenericServer) error {
			s.AddPostStartHookOrDie("a", nop)
			return s.AddPostStartHook("a", nop)
		}, `post-start hook "a" is already registered`},
		{"after prepare", func(s *GenericServer) error {
			s.PrepareRun()
			return s.AddPostStartHook("a", nop)
		}, "already prepared"},
		{"pre-shutdown duplicate", func(s *GenericServer) error {
			if err := s.AddPreShutdownHook("a", nopPre); err != nil {
				return err
			}
			return s.AddPreShutdownHook("a", nopPre)
		}, `pre-shutdown hook "a" is already registered`},
		{"check after prepare", func(s *GenericServer) error {
			s.PrepareRun()
			return s.AddHealthChecks(healthz.PingCheck{})
		}, "already prepared"},
		{"duplicate check", func(s *GenericServer) error { return s.AddReadyzChecks(healthz.PingCheck{}) }, `"ping" is already registered`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustNew(t, NewConfig(), "test", NewNotFoundDelegate())
			err := tt.add(s)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("error = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestPrepareRunMergesChecksInnermostFirst(t *testing.T) {
	c := NewConfig()
	inner := mustNew(t, c, "inner", NewNotFoundDelegate())
	inner.AddPostStartHookOrDie("shared", func(PostStartHookContext) error { return nil })
	inner.AddHealthChecks(healthz.NamedCheck("inner-check", func(*http.Request) error { return nil }))
	outer := mustNew(t, c, "outer", inner)
	outer.AddPostStartHookOrDie("shared", func(PostStartHookContext) error { return nil })
	outer.AddPostStartHookOrDie("outer-only", func(PostStartHookContext) error { return nil })
	p := outer.PrepareRun()
	if p2 := outer.PrepareRun(); p2 != p {
		t.Error("second PrepareRun returned a different server")
	}
	var names []string
	for _, h := range p.postStartHooks {
		names = append(names, h.name)
	}
	if got := strings.Join(names, ","); got != "outer-only,shared" {
		t.Errorf("merged hooks = %s, want outer-only,shared", got)
	}
	rec := httptest.NewRecorder()
	outer.Handler.NonAPIMux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz?exclude=x", nil))
	want := "[+]ping ok\n[-]poststarthook/shared failed: reason withheld\n[+]inner-check ok\n[-]poststarthook/outer-only failed: reason withheld\n" +
		"warn: some health checks cannot be excluded: no matches for \"x\"\nhealthz check failed\n"
	if rec.Body.String() != want {
		t.Errorf("/healthz before the hooks ran:\n got %q\nwant %q", rec.Body.String(), want)
	}
	if err := inner.AddPostStartHook("late", func(PostStartHookContext) error { return nil }); err == nil {
		t.Error("an inner server accepted a hook after the chain was prepared")
	}
}

func TestDirector(t *testing.T) {
	c := NewConfig()
	inner := mustNew(t, c, "inner", NewNotFoundDelegate())
	inner.Handler.NonAPIMux.Handle("/apiserver", text("inner"))
	outer := mustNew(t, c, "outer", inner)
	outer.Handler.APIMux.Handle("/apis", text("outer apis"))
	outer.Handler.APIMux.HandlePrefix("/api/", text("outer api"))
	outer.Handler.NonAPIMux.Handle("/apis/foo", text("outer non-api"))
	outer.Handler.APIMux.Handle("/openapi/v2", text("misplaced"))
	tests := []struct{ path, want string }{
		{"/apis", "outer apis"},
		{"/api/v1/pods", "outer api"},
		{"/apis/foo", "outer non-api"}, // the API mux has no route for it
		{"/apiserver", "inner"},        // not an API path though it starts with /api
		{"/openapi/v2", notFoundBody},  // the API mux serves API paths only
		{"/apis/foo/bar", notFoundBody},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		outer.UnprotectedHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
		if rec.Body.String() != tt.want {
			t.Errorf("GET %s = %q, want %q", tt.path, rec.Body.String(), tt.want)
		}
	}
}

func TestNewRequiresDelegate(t *testing.T) {
	if _, err := NewConfig().New("x", nil); err == nil {
		t.Error("New with a nil delegate succeeded")
	}
}
