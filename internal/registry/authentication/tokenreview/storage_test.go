package tokenreview

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// fakeAuth answers token "good" with alice for the audiences it is asked
// (or those it is configured with), token "bad" with an error, and has no
// opinion on anything else. It records the audiences it saw.
type fakeAuth struct {
	audiences []string
	gotAuds   []string
	sawAuds   bool
	sawUser   bool
}

var errExpired = errors.New("token has expired")

func (f *fakeAuth) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	f.gotAuds, f.sawAuds = authenticator.AudiencesFrom(ctx)
	_, f.sawUser = request.UserFrom(ctx)
	switch token {
	case "good":
		auds := f.audiences
		if auds == nil {
			auds = f.gotAuds
		}
		return &authenticator.Response{
			User:      &user.DefaultInfo{Name: "alice", UID: "1", Groups: []string{"dev"}, Extra: map[string][]string{"k": {"v"}}},
			Audiences: auds,
		}, true, nil
	case "bad":
		return nil, false, errExpired
	}
	return nil, false, nil
}

func TestCreate(t *testing.T) {
	alice := authenticationv1.UserInfo{Username: "alice", UID: "1", Groups: []string{"dev"}, Extra: map[string]authenticationv1.ExtraValue{"k": {"v"}}}
	tests := []struct {
		name         string
		apiAuds      []string
		spec         authenticationv1.TokenReviewSpec
		auth         fakeAuth
		want         authenticationv1.TokenReviewStatus
		wantAskAuds  []string
		wantCode     int32
		wantMessage  string
		nilAuth      bool
		requestNS    string
		requestUser  bool
		wantNoAsking bool
	}{
		{
			name: "authenticated for the API audiences", apiAuds: []string{"api"},
			spec:        authenticationv1.TokenReviewSpec{Token: "good"},
			want:        authenticationv1.TokenReviewStatus{Authenticated: true, User: alice, Audiences: []string{"api"}},
			wantAskAuds: []string{"api"},
		},
		{
			name: "spec audiences win", apiAuds: []string{"api"},
			spec:        authenticationv1.TokenReviewSpec{Token: "good", Audiences: []string{"vault"}},
			want:        authenticationv1.TokenReviewStatus{Authenticated: true, User: alice, Audiences: []string{"vault"}},
			wantAskAuds: []string{"vault"},
		},
		{
			name: "no audiences anywhere", spec: authenticationv1.TokenReviewSpec{Token: "good"},
			auth: fakeAuth{audiences: []string{}},
			want: authenticationv1.TokenReviewStatus{Authenticated: true, User: alice, Audiences: []string{}},
		},
		{
			name: "invalid token reports the error", apiAuds: []string{"api"},
			spec:        authenticationv1.TokenReviewSpec{Token: "bad"},
			want:        authenticationv1.TokenReviewStatus{Error: "token has expired"},
			wantAskAuds: []string{"api"},
		},
		{
			name: "unknown token", spec: authenticationv1.TokenReviewSpec{Token: "who"},
			want: authenticationv1.TokenReviewStatus{},
		},
		{
			name: "authenticator ignored the audiences", apiAuds: []string{"api"},
			spec:     authenticationv1.TokenReviewSpec{Token: "good"},
			auth:     fakeAuth{audiences: []string{"other"}},
			wantCode: http.StatusInternalServerError, wantMessage: "Internal error occurred: error validating audiences",
			wantAskAuds: []string{"api"},
		},
		{
			name: "token required", spec: authenticationv1.TokenReviewSpec{},
			wantCode: http.StatusBadRequest, wantMessage: "token is required for TokenReview in authentication", wantNoAsking: true,
		},
		{
			name: "namespace not allowed", requestNS: "ns", spec: authenticationv1.TokenReviewSpec{Token: "good"},
			wantCode: http.StatusBadRequest, wantMessage: "namespace is not allowed on this type: ns", wantNoAsking: true,
		},
		{
			name: "no authenticator", nilAuth: true, spec: authenticationv1.TokenReviewSpec{Token: "good"},
			want: authenticationv1.TokenReviewStatus{}, wantNoAsking: true,
		},
		{
			name: "the reviewer's identity does not reach the authenticator", requestUser: true,
			spec: authenticationv1.TokenReviewSpec{Token: "who"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var auth authenticator.Token = &tt.auth
			if tt.nilAuth {
				auth = nil
			}
			ctx := context.Background()
			if tt.requestNS != "" {
				ctx = request.WithNamespace(ctx, tt.requestNS)
			}
			if tt.requestUser {
				ctx = request.WithUser(ctx, &user.DefaultInfo{Name: "reviewer"})
			}
			ctx = authenticator.WithAudiences(ctx, []string{"from-the-request"})
			s := NewStorage(auth, tt.apiAuds)["tokenreviews"].(rest.Creater)
			out, err := s.Create(ctx, &authenticationv1.TokenReview{Spec: tt.spec}, nil, nil)
			if tt.wantCode != 0 {
				var status apierrors.APIStatus
				if !errors.As(err, &status) || status.Status().Code != tt.wantCode || status.Status().Message != tt.wantMessage {
					t.Fatalf("err = %v, want %d %q", err, tt.wantCode, tt.wantMessage)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, out.(*authenticationv1.TokenReview).Status); diff != "" {
					t.Errorf("status (-want +got):\n%s", diff)
				}
			}
			if tt.wantNoAsking {
				if tt.auth.gotAuds != nil || tt.auth.sawAuds {
					t.Error("the authenticator was asked")
				}
				return
			}
			if diff := cmp.Diff(tt.wantAskAuds, tt.auth.gotAuds); diff != "" {
				t.Errorf("audiences asked (-want +got):\n%s", diff)
			}
			if tt.auth.sawUser {
				t.Error("the request's user leaked into the review's context")
			}
		})
	}
}

// TestCancellation: a cancelled request cancels the authentication.
func TestCancellation(t *testing.T) {
	var sawDone bool
	auth := authenticator.TokenFunc(func(ctx context.Context, _ string) (*authenticator.Response, bool, error) {
		<-ctx.Done()
		sawDone = true
		return nil, false, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := NewStorage(auth, nil)["tokenreviews"].(rest.Creater).Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "t"}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !sawDone || out.(*authenticationv1.TokenReview).Status.Error != context.Canceled.Error() {
		t.Errorf("status = %+v", out.(*authenticationv1.TokenReview).Status)
	}
}
