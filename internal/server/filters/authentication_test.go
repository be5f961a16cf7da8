package filters

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

func TestWithAuthentication(t *testing.T) {
	bob := &user.DefaultInfo{Name: "bob"}
	tests := []struct {
		name     string
		auth     authenticator.RequestFunc
		wantCode int
		wantUser string
	}{
		{"success", func(*http.Request) (*authenticator.Response, bool, error) {
			return &authenticator.Response{User: bob}, true, nil
		}, 200, "bob"},
		{"no opinion", func(*http.Request) (*authenticator.Response, bool, error) { return nil, false, nil }, 401, ""},
		{"bad credential", func(*http.Request) (*authenticator.Response, bool, error) {
			return nil, false, errors.New("token expired")
		}, 401, ""},
		{"ok without user", func(*http.Request) (*authenticator.Response, bool, error) {
			return &authenticator.Response{}, true, nil
		}, 401, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotUser, gotAuthz string
			inner := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				if u, ok := request.UserFrom(r.Context()); ok {
					gotUser = u.GetName()
				}
				gotAuthz = r.Header.Get("Authorization")
			})
			req := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
			req.Header.Set("Authorization", "Bearer secret")
			rec := httptest.NewRecorder()
			WithAuthentication(inner, tt.auth, nil, nil).ServeHTTP(rec, req)
			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d", rec.Code, tt.wantCode)
			}
			if gotUser != tt.wantUser {
				t.Errorf("user = %q, want %q", gotUser, tt.wantUser)
			}
			if gotAuthz != "" {
				t.Errorf("Authorization header reached the handler: %q", gotAuthz)
			}
			if tt.wantCode == 401 {
				s := decodeStatus(t, rec)
				if s.Reason != "Unauthorized" || s.Message != "Unauthorized" {
					t.Errorf("Status = %+v", s)
				}
			}
		})
	}
}
