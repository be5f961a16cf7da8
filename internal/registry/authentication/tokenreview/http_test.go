package tokenreview_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/authentication/selfsubjectreview"
	"github.com/kapi-dev/kapi/internal/registry/authentication/tokenreview"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// TestOverHTTP serves both authentication reviews as
// authentication.k8s.io/v1, as the admin.
func TestOverHTTP(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	tokens := authenticator.TokenFunc(func(ctx context.Context, token string) (*authenticator.Response, bool, error) {
		if token != "s3cret" {
			return nil, false, nil
		}
		auds, _ := authenticator.AudiencesFrom(ctx)
		return &authenticator.Response{User: &user.DefaultInfo{Name: "bob", Groups: []string{"dev"}}, Audiences: auds}, true, nil
	})
	storage := map[string]rest.Storage{}
	for k, v := range tokenreview.NewStorage(tokens, []string{"https://kapi"}) {
		storage[k] = v
	}
	for k, v := range selfsubjectreview.NewStorage() {
		storage[k] = v
	}
	g := &endpoints.APIGroupVersion{GroupVersion: authenticationv1.SchemeGroupVersion, Storage: storage, Scheme: scheme, Codecs: serializer.NewCodecFactory(scheme)}
	h, _, err := g.Install()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, body string
		wantCode         int
		wantInBody       []string
	}{
		{
			name: "valid token", path: "/apis/authentication.k8s.io/v1/tokenreviews",
			body:     `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"s3cret"}}`,
			wantCode: http.StatusCreated, wantInBody: []string{`"authenticated":true`, `"username":"bob"`, `"audiences":["https://kapi"]`},
		},
		{
			name: "unknown token", path: "/apis/authentication.k8s.io/v1/tokenreviews",
			body:     `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"nope"}}`,
			wantCode: http.StatusCreated, wantInBody: []string{`"status":{"user":{}}`},
		},
		{
			name: "no token", path: "/apis/authentication.k8s.io/v1/tokenreviews",
			body:     `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{}}`,
			wantCode: http.StatusBadRequest, wantInBody: []string{`"message":"token is required for TokenReview in authentication"`},
		},
		{
			name: "who am i", path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
			body:     `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`,
			wantCode: http.StatusCreated, wantInBody: []string{`"kind":"SelfSubjectReview"`, `"userInfo":{"username":"kapi-admin","groups":["system:masters"]}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			info, err := request.NewRequestInfoFactory().NewRequestInfo(req)
			if err != nil {
				t.Fatal(err)
			}
			ctx := request.WithRequestInfo(req.Context(), info)
			ctx = request.WithUser(ctx, &user.DefaultInfo{Name: "kapi-admin", Groups: []string{user.SystemPrivilegedGroup}})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req.WithContext(ctx))
			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d: %s", rec.Code, tt.wantCode, rec.Body)
			}
			for _, s := range tt.wantInBody {
				if !strings.Contains(rec.Body.String(), s) {
					t.Errorf("body lacks %s: %s", s, rec.Body)
				}
			}
			if strings.Contains(rec.Body.String(), "s3cret") && tt.name != "valid token" {
				t.Errorf("the token is echoed: %s", rec.Body)
			}
		})
	}
}
