package subjectaccessreview_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/authorization/localsubjectaccessreview"
	"github.com/kapi-dev/kapi/internal/registry/authorization/selfsubjectaccessreview"
	"github.com/kapi-dev/kapi/internal/registry/authorization/selfsubjectrulesreview"
	"github.com/kapi-dev/kapi/internal/registry/authorization/subjectaccessreview"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// alice may get pods and nothing else.
var aliceGetsPods = authorizer.Func(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if a.User != nil && a.User.GetName() == "alice" && a.Verb == "get" && a.Resource == "pods" {
		return authorizer.DecisionAllow, "alice reads pods", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
})

type oneRule struct{}

func (oneRule) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	return []authorizer.ResourceRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}, nil, false, nil
}

// newHandler serves the four access reviews as authorization.k8s.io/v1,
// behind the part of the filter chain they rely on, as alice.
func newHandler(t *testing.T) (http.Handler, []metav1.APIResource) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage := map[string]rest.Storage{}
	for _, s := range []map[string]rest.Storage{
		subjectaccessreview.NewStorage(aliceGetsPods),
		localsubjectaccessreview.NewStorage(aliceGetsPods),
		selfsubjectaccessreview.NewStorage(aliceGetsPods),
		selfsubjectrulesreview.NewStorage(oneRule{}),
	} {
		for k, v := range s {
			storage[k] = v
		}
	}
	g := &endpoints.APIGroupVersion{GroupVersion: authorizationv1.SchemeGroupVersion, Storage: storage, Scheme: scheme, Codecs: serializer.NewCodecFactory(scheme)}
	h, resources, err := g.Install()
	if err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, err := request.NewRequestInfoFactory().NewRequestInfo(req)
		if err != nil {
			t.Fatal(err)
		}
		ctx := request.WithRequestInfo(req.Context(), info)
		ctx = request.WithNamespace(ctx, info.Namespace)
		ctx = request.WithUser(ctx, &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}})
		h.ServeHTTP(w, req.WithContext(ctx))
	}), resources
}

func TestOverHTTP(t *testing.T) {
	h, resources := newHandler(t)
	tests := []struct {
		name, path, body string
		wantCode         int
		wantInBody       []string
	}{
		{
			name: "self review allowed", path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
			body:     `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"pods","namespace":"ns"}}}`,
			wantCode: http.StatusCreated, wantInBody: []string{`"kind":"SelfSubjectAccessReview"`, `"allowed":true`, `"reason":"alice reads pods"`},
		},
		{
			name: "review of another user", path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
			body:     `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"bob","resourceAttributes":{"verb":"get","resource":"pods"}}}`,
			wantCode: http.StatusCreated, wantInBody: []string{`"kind":"SubjectAccessReview"`, `"allowed":false`},
		},
		{
			name: "invalid review", path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
			body:     `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{}}`,
			wantCode: http.StatusUnprocessableEntity, wantInBody: []string{`"field":"spec.user"`, `"reason":"Invalid"`},
		},
		{
			name: "local review", path: "/apis/authorization.k8s.io/v1/namespaces/ns/localsubjectaccessreviews",
			body:     `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"alice","resourceAttributes":{"verb":"get","resource":"pods","namespace":"ns"}}}`,
			wantCode: http.StatusCreated, wantInBody: []string{`"namespace":"ns"`, `"allowed":true`},
		},
		{
			name: "local review of another namespace", path: "/apis/authorization.k8s.io/v1/namespaces/ns/localsubjectaccessreviews",
			body:     `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"alice","resourceAttributes":{"verb":"get","resource":"pods","namespace":"other"}}}`,
			wantCode: http.StatusUnprocessableEntity, wantInBody: []string{`"field":"spec.resourceAttributes.namespace"`, `must match metadata.namespace`},
		},
		{
			name: "rules review", path: "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
			body:     `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"ns"}}`,
			wantCode: http.StatusCreated, wantInBody: []string{`"resourceRules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]`, `"nonResourceRules":[]`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, tt.path, strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d: %s", rec.Code, tt.wantCode, rec.Body)
			}
			for _, s := range tt.wantInBody {
				if !strings.Contains(rec.Body.String(), s) {
					t.Errorf("body lacks %s: %s", s, rec.Body)
				}
			}
		})
	}
	// create-only in discovery; reading a review is not served
	for _, r := range resources {
		if len(r.Verbs) != 1 || r.Verbs[0] != "create" {
			t.Errorf("%s verbs = %v, want [create]", r.Name, r.Verbs)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/apis/authorization.k8s.io/v1/subjectaccessreviews", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET subjectaccessreviews = %d", rec.Code)
	}
}
