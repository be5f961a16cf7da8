package anonymous

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name          string
		req           func() *http.Request
		wantAudiences []string
	}{
		{name: "plain request", req: func() *http.Request { return httptest.NewRequest("GET", "/api", nil) }},
		{name: "with credentials it ignores", req: func() *http.Request {
			r := httptest.NewRequest("GET", "/apis", nil)
			r.Header.Set("Authorization", "Bearer whatever")
			return r
		}},
		{name: "audiences passed through", wantAudiences: []string{"api", "other"}, req: func() *http.Request {
			r := httptest.NewRequest("GET", "/healthz", nil)
			return r.WithContext(authenticator.WithAudiences(r.Context(), []string{"api", "other"}))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, ok, err := New().AuthenticateRequest(tt.req())
			if !ok || err != nil {
				t.Fatalf("AuthenticateRequest() = ok %v, err %v; want ok", ok, err)
			}
			want := &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}
			if diff := cmp.Diff(want, resp.User); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAudiences, resp.Audiences); diff != "" {
				t.Errorf("audiences (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResponsesAreFresh(t *testing.T) {
	a := New()
	first, _, _ := a.AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
	first.User.(*user.DefaultInfo).Groups[0] = user.SystemPrivilegedGroup
	second, _, _ := a.AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
	if got := second.User.GetGroups(); !cmp.Equal(got, []string{user.AllUnauthenticated}) {
		t.Errorf("groups = %q after a caller changed an earlier response", got)
	}
}
