package selfsubjectaccessreview

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

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

func TestCreate(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"dev", user.AllAuthenticated}}
	pods := authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "ns", Verb: "create", Resource: "pods"}}
	tests := []struct {
		name      string
		user      user.Info
		spec      authorizationv1.SelfSubjectAccessReviewSpec
		authz     fakeAuthz
		want      authorizationv1.SubjectAccessReviewStatus
		wantCode  int32
		wantAttrs authorizer.Attributes
	}{
		{
			name: "allowed", user: alice, spec: pods,
			authz:     fakeAuthz{decision: authorizer.DecisionAllow, reason: "ok"},
			want:      authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "ok"},
			wantAttrs: authorizer.Attributes{User: alice, Namespace: "ns", Verb: "create", APIVersion: "*", Resource: "pods", ResourceRequest: true},
		},
		{
			name: "denied with reason", user: alice, spec: pods,
			authz:     fakeAuthz{decision: authorizer.DecisionDeny, reason: "never"},
			want:      authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "never"},
			wantAttrs: authorizer.Attributes{User: alice, Namespace: "ns", Verb: "create", APIVersion: "*", Resource: "pods", ResourceRequest: true},
		},
		{
			name: "evaluation error on a non-resource URL", user: alice,
			spec:      authorizationv1.SelfSubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/metrics"}},
			authz:     fakeAuthz{decision: authorizer.DecisionNoOpinion, err: errors.New("rbac: lister failed")},
			want:      authorizationv1.SubjectAccessReviewStatus{EvaluationError: "rbac: lister failed"},
			wantAttrs: authorizer.Attributes{User: alice, Verb: "get", Path: "/metrics"},
		},
		{name: "no user", spec: pods, wantCode: http.StatusBadRequest},
		{name: "no attributes", user: alice, wantCode: http.StatusUnprocessableEntity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.user != nil {
				ctx = request.WithUser(ctx, tt.user)
			}
			s := NewStorage(&tt.authz)["selfsubjectaccessreviews"].(rest.Creater)
			out, err := s.Create(ctx, &authorizationv1.SelfSubjectAccessReview{Spec: tt.spec}, nil, nil)
			if tt.wantCode != 0 {
				var status apierrors.APIStatus
				if !errors.As(err, &status) || status.Status().Code != tt.wantCode {
					t.Fatalf("err = %v, want code %d", err, tt.wantCode)
				}
				if tt.authz.got != nil {
					t.Error("the authorizer was asked about a rejected review")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.(*authorizationv1.SelfSubjectAccessReview).Status); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAttrs, *tt.authz.got); diff != "" {
				t.Errorf("attributes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNoUserMessage(t *testing.T) {
	s := NewStorage(&fakeAuthz{})["selfsubjectaccessreviews"].(rest.Creater)
	spec := authorizationv1.SelfSubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/"}}
	_, err := s.Create(context.Background(), &authorizationv1.SelfSubjectAccessReview{Spec: spec}, nil, nil)
	if want := "no user present on request"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}
