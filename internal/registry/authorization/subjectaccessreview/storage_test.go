package subjectaccessreview

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// fakeAuthz answers as configured and records what it was asked.
type fakeAuthz struct {
	decision authorizer.Decision
	reason   string
	err      error
	got      *authorizer.Attributes
}

func (f *fakeAuthz) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	f.got = &a
	return f.decision, f.reason, f.err
}

var errWebhook = errors.New("webhook down")

func TestCreate(t *testing.T) {
	resourceSpec := authorizationv1.SubjectAccessReviewSpec{
		User: "alice", UID: "1", Groups: []string{"dev"},
		Extra:              map[string]authorizationv1.ExtraValue{"scopes": {"a"}},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "ns", Verb: "get", Group: "apps", Resource: "deployments", Subresource: "scale", Name: "web"},
	}
	wantResourceAttrs := authorizer.Attributes{
		User: &user.DefaultInfo{Name: "alice", UID: "1", Groups: []string{"dev"}, Extra: map[string][]string{"scopes": {"a"}}},
		Verb: "get", Namespace: "ns", APIGroup: "apps", APIVersion: "*", Resource: "deployments", Subresource: "scale", Name: "web",
		ResourceRequest: true,
	}
	tests := []struct {
		name      string
		spec      authorizationv1.SubjectAccessReviewSpec
		authz     fakeAuthz
		want      authorizationv1.SubjectAccessReviewStatus
		wantAttrs *authorizer.Attributes
	}{
		{
			name: "allowed", spec: resourceSpec,
			authz:     fakeAuthz{decision: authorizer.DecisionAllow, reason: "RBAC: allowed by RoleBinding"},
			want:      authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "RBAC: allowed by RoleBinding"},
			wantAttrs: &wantResourceAttrs,
		},
		{
			name: "denied with reason", spec: resourceSpec,
			authz: fakeAuthz{decision: authorizer.DecisionDeny, reason: "forbidden by policy"},
			want:  authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "forbidden by policy"},
		},
		{
			name: "no opinion", spec: resourceSpec,
			authz: fakeAuthz{decision: authorizer.DecisionNoOpinion, reason: "no rule"},
			want:  authorizationv1.SubjectAccessReviewStatus{Reason: "no rule"},
		},
		{
			name:  "evaluation error",
			spec:  authorizationv1.SubjectAccessReviewSpec{Groups: []string{"g"}, NonResourceAttributes: &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/healthz"}},
			authz: fakeAuthz{decision: authorizer.DecisionNoOpinion, err: errWebhook},
			want:  authorizationv1.SubjectAccessReviewStatus{EvaluationError: "webhook down"},
			wantAttrs: &authorizer.Attributes{
				User: &user.DefaultInfo{Groups: []string{"g"}},
				Verb: "get", Path: "/healthz",
			},
		},
		{
			name:  "explicit version is kept",
			spec:  authorizationv1.SubjectAccessReviewSpec{User: "bob", ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "list", Version: "v1", Resource: "pods"}},
			authz: fakeAuthz{decision: authorizer.DecisionAllow},
			want:  authorizationv1.SubjectAccessReviewStatus{Allowed: true},
			wantAttrs: &authorizer.Attributes{
				User: &user.DefaultInfo{Name: "bob"}, Verb: "list", APIVersion: "v1", Resource: "pods", ResourceRequest: true,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStorage(&tt.authz)["subjectaccessreviews"].(rest.Creater)
			out, err := s.Create(context.Background(), &authorizationv1.SubjectAccessReview{Spec: tt.spec}, nil, &metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sar := out.(*authorizationv1.SubjectAccessReview)
			if diff := cmp.Diff(tt.want, sar.Status); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.spec, sar.Spec); diff != "" {
				t.Errorf("spec changed (-want +got):\n%s", diff)
			}
			if tt.wantAttrs != nil {
				if diff := cmp.Diff(*tt.wantAttrs, *tt.authz.got); diff != "" {
					t.Errorf("attributes (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestCreateInvalid(t *testing.T) {
	tests := []struct {
		name       string
		sar        *authorizationv1.SubjectAccessReview
		wantFields []string
	}{
		{name: "empty", sar: &authorizationv1.SubjectAccessReview{}, wantFields: []string{"spec", "spec.user"}},
		{
			name: "named",
			sar: &authorizationv1.SubjectAccessReview{
				ObjectMeta: metav1.ObjectMeta{Name: "x"},
				Spec:       authorizationv1.SubjectAccessReviewSpec{User: "a", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/"}},
			},
			wantFields: []string{"metadata"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			authz := &fakeAuthz{decision: authorizer.DecisionAllow}
			_, err := NewStorage(authz)["subjectaccessreviews"].(rest.Creater).Create(context.Background(), tt.sar, nil, nil)
			var status apierrors.APIStatus
			if !errors.As(err, &status) || status.Status().Code != http.StatusUnprocessableEntity {
				t.Fatalf("err = %v, want a 422", err)
			}
			details := status.Status().Details
			if details.Kind != "SubjectAccessReview" || details.Group != "authorization.k8s.io" {
				t.Errorf("details kind = %s.%s", details.Kind, details.Group)
			}
			var fields []string
			for _, c := range details.Causes {
				fields = append(fields, c.Field)
			}
			if diff := cmp.Diff(tt.wantFields, fields); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
			if authz.got != nil {
				t.Error("the authorizer was asked about an invalid review")
			}
		})
	}
}

func TestCreateAdmission(t *testing.T) {
	authz := &fakeAuthz{decision: authorizer.DecisionAllow}
	denied := apierrors.NewForbidden(authorizationv1.Resource("subjectaccessreviews"), "", errors.New("admission says no"))
	reject := func(context.Context, runtime.Object) error { return denied }
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "a", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/"}}}
	_, err := NewStorage(authz)["subjectaccessreviews"].(rest.Creater).Create(context.Background(), sar, reject, nil)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("err = %v, want the admission error", err)
	}
	if authz.got != nil {
		t.Error("the authorizer was asked after admission refused")
	}
}

func TestStorageShape(t *testing.T) {
	s := NewStorage(&fakeAuthz{})
	if len(s) != 1 {
		t.Fatalf("storages = %v", s)
	}
	r := s["subjectaccessreviews"]
	if _, ok := r.New().(*authorizationv1.SubjectAccessReview); !ok {
		t.Errorf("New() = %T", r.New())
	}
	if r.(rest.Scoper).NamespaceScoped() {
		t.Error("subjectaccessreviews must be cluster-scoped")
	}
	for name, ok := range map[string]bool{
		"getter":  implements[rest.Getter](r),
		"lister":  implements[rest.Lister](r),
		"watcher": implements[rest.Watcher](r),
		"deleter": implements[rest.GracefulDeleter](r),
	} {
		if ok {
			t.Errorf("storage is a %s; reviews are create-only", name)
		}
	}
	if got := r.(rest.GroupVersionKindProvider).GroupVersionKind(authorizationv1.SchemeGroupVersion); got != kind {
		t.Errorf("GroupVersionKind() = %v", got)
	}
}

func implements[T any](v any) bool {
	_, ok := v.(T)
	return ok
}
