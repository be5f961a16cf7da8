package localsubjectaccessreview

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

type fakeAuthz struct {
	decision authorizer.Decision
	reason   string
	err      error
	calls    int
}

func (f *fakeAuthz) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	f.calls++
	return f.decision, f.reason, f.err
}

func review(metaNS, attrNS string) *authorizationv1.LocalSubjectAccessReview {
	return &authorizationv1.LocalSubjectAccessReview{
		ObjectMeta: metav1.ObjectMeta{Namespace: metaNS},
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               "alice",
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: attrNS, Verb: "get", Resource: "pods"},
		},
	}
}

func TestCreate(t *testing.T) {
	tests := []struct {
		name       string
		requestNS  string
		review     *authorizationv1.LocalSubjectAccessReview
		authz      fakeAuthz
		want       authorizationv1.SubjectAccessReviewStatus
		wantCode   int32
		wantMsg    string
		wantFields []string
	}{
		{
			name: "allowed", requestNS: "ns", review: review("ns", "ns"),
			authz: fakeAuthz{decision: authorizer.DecisionAllow},
			want:  authorizationv1.SubjectAccessReviewStatus{Allowed: true},
		},
		{
			name: "denied with reason", requestNS: "ns", review: review("ns", "ns"),
			authz: fakeAuthz{decision: authorizer.DecisionDeny, reason: "no"},
			want:  authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "no"},
		},
		{
			name: "evaluation error", requestNS: "ns", review: review("ns", "ns"),
			authz: fakeAuthz{decision: authorizer.DecisionNoOpinion, err: errors.New("boom")},
			want:  authorizationv1.SubjectAccessReviewStatus{EvaluationError: "boom"},
		},
		{
			name: "attributes in another namespace", requestNS: "ns", review: review("ns", "other"),
			wantCode: http.StatusUnprocessableEntity, wantFields: []string{"spec.resourceAttributes.namespace"},
		},
		{
			name: "non-resource attributes", requestNS: "ns",
			review: &authorizationv1.LocalSubjectAccessReview{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns"},
				Spec:       authorizationv1.SubjectAccessReviewSpec{User: "a", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/"}},
			},
			wantCode: http.StatusUnprocessableEntity, wantFields: []string{"spec.nonResourceAttributes"},
		},
		{
			name: "request namespace differs", requestNS: "ns", review: review("other", "other"),
			wantCode: http.StatusBadRequest, wantMsg: "spec.resourceAttributes.namespace must match namespace: ns",
		},
		{
			name: "no request namespace", review: review("ns", "ns"),
			wantCode: http.StatusBadRequest, wantMsg: "namespace is required on this type: ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.requestNS != "" {
				ctx = request.WithNamespace(ctx, tt.requestNS)
			}
			s := NewStorage(&tt.authz)["localsubjectaccessreviews"].(rest.Creater)
			out, err := s.Create(ctx, tt.review, nil, &metav1.CreateOptions{})
			if tt.wantCode != 0 {
				var status apierrors.APIStatus
				if !errors.As(err, &status) || status.Status().Code != tt.wantCode {
					t.Fatalf("err = %v, want code %d", err, tt.wantCode)
				}
				if tt.wantMsg != "" && status.Status().Message != tt.wantMsg {
					t.Errorf("message = %q, want %q", status.Status().Message, tt.wantMsg)
				}
				var fields []string
				if d := status.Status().Details; d != nil {
					for _, c := range d.Causes {
						fields = append(fields, c.Field)
					}
				}
				if diff := cmp.Diff(tt.wantFields, fields); diff != "" {
					t.Errorf("causes (-want +got):\n%s", diff)
				}
				if tt.authz.calls != 0 {
					t.Error("the authorizer was asked about a rejected review")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.(*authorizationv1.LocalSubjectAccessReview).Status); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNamespaced(t *testing.T) {
	r := NewStorage(&fakeAuthz{})["localsubjectaccessreviews"]
	if !r.(rest.Scoper).NamespaceScoped() {
		t.Error("localsubjectaccessreviews must be namespaced")
	}
	if _, ok := r.New().(*authorizationv1.LocalSubjectAccessReview); !ok {
		t.Errorf("New() = %T", r.New())
	}
}
