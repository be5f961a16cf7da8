package selfsubjectrulesreview

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// fakeResolver answers as configured and records whom it was asked about.
type fakeResolver struct {
	rules      []authorizer.ResourceRule
	nonRules   []authorizer.NonResourceRule
	incomplete bool
	err        error
	gotUser    user.Info
	gotNS      string
}

func (f *fakeResolver) RulesFor(_ context.Context, u user.Info, ns string) ([]authorizer.ResourceRule, []authorizer.NonResourceRule, bool, error) {
	f.gotUser, f.gotNS = u, ns
	return f.rules, f.nonRules, f.incomplete, f.err
}

func TestCreate(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice"}
	tests := []struct {
		name     string
		resolver fakeResolver
		want     authorizationv1.SubjectRulesReviewStatus
	}{
		{
			name: "rules",
			resolver: fakeResolver{
				rules:    []authorizer.ResourceRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"p"}}},
				nonRules: []authorizer.NonResourceRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/api"}}},
			},
			want: authorizationv1.SubjectRulesReviewStatus{
				ResourceRules:    []authorizationv1.ResourceRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{"p"}}},
				NonResourceRules: []authorizationv1.NonResourceRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/api"}}},
			},
		},
		{
			name:     "incomplete with an error",
			resolver: fakeResolver{incomplete: true, err: errors.New("webhook authorizer does not support user rule resolution")},
			want: authorizationv1.SubjectRulesReviewStatus{
				ResourceRules: []authorizationv1.ResourceRule{}, NonResourceRules: []authorizationv1.NonResourceRule{},
				Incomplete: true, EvaluationError: "webhook authorizer does not support user rule resolution",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStorage(&tt.resolver)["selfsubjectrulesreviews"].(rest.Creater)
			in := &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "ns"}}
			out, err := s.Create(request.WithUser(context.Background(), alice), in, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, out.(*authorizationv1.SelfSubjectRulesReview).Status); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if tt.resolver.gotUser != alice || tt.resolver.gotNS != "ns" {
				t.Errorf("asked about %v in %q", tt.resolver.gotUser, tt.resolver.gotNS)
			}
		})
	}
}

// TestEmptyListsOnTheWire: the rule lists are required fields, so an
// answer without rules says [] rather than null.
func TestEmptyListsOnTheWire(t *testing.T) {
	s := NewStorage(&fakeResolver{})["selfsubjectrulesreviews"].(rest.Creater)
	in := &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "ns"}}
	out, err := s.Create(request.WithUser(context.Background(), &user.DefaultInfo{Name: "a"}), in, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"resourceRules":[]`) || !strings.Contains(string(b), `"nonResourceRules":[]`) {
		t.Errorf("JSON = %s", b)
	}
}

func TestCreateBadRequest(t *testing.T) {
	tests := []struct {
		name    string
		user    user.Info
		ns      string
		wantMsg string
	}{
		{name: "no user", ns: "ns", wantMsg: "no user present on request"},
		{name: "no namespace", user: &user.DefaultInfo{Name: "a"}, wantMsg: "no namespace on request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.user != nil {
				ctx = request.WithUser(ctx, tt.user)
			}
			r := &fakeResolver{}
			in := &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: tt.ns}}
			_, err := NewStorage(r)["selfsubjectrulesreviews"].(rest.Creater).Create(ctx, in, nil, nil)
			if !apierrors.IsBadRequest(err) || err.Error() != tt.wantMsg {
				t.Errorf("err = %v, want bad request %q", err, tt.wantMsg)
			}
			if r.gotUser != nil {
				t.Error("the resolver was asked")
			}
		})
	}
}
