package selfsubjectreview

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestCreate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		user user.Info
		want authenticationv1.UserInfo
	}{
		{
			name: "full identity",
			user: &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", user.AllAuthenticated}, Extra: map[string][]string{"scopes": {"a", "b"}}},
			want: authenticationv1.UserInfo{Username: "alice", UID: "u-1", Groups: []string{"dev", user.AllAuthenticated}, Extra: map[string]authenticationv1.ExtraValue{"scopes": {"a", "b"}}},
		},
		{
			name: "anonymous",
			user: &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}},
			want: authenticationv1.UserInfo{Username: user.Anonymous, Groups: []string{user.AllUnauthenticated}, Extra: map[string]authenticationv1.ExtraValue{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &REST{now: func() time.Time { return now }}
			out, err := s.Create(request.WithUser(context.Background(), tt.user), &authenticationv1.SelfSubjectReview{}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			review := out.(*authenticationv1.SelfSubjectReview)
			if diff := cmp.Diff(tt.want, review.Status.UserInfo); diff != "" {
				t.Errorf("userInfo (-want +got):\n%s", diff)
			}
			if !review.CreationTimestamp.Time.Equal(now) {
				t.Errorf("creationTimestamp = %v, want %v", review.CreationTimestamp, now)
			}
		})
	}
}

func TestCreateErrors(t *testing.T) {
	refused := apierrors.NewForbidden(authenticationv1.Resource("selfsubjectreviews"), "", errors.New("no"))
	tests := []struct {
		name       string
		ctx        context.Context
		validation rest.ValidateObjectFunc
		want       func(error) bool
	}{
		{name: "no user", ctx: context.Background(), want: apierrors.IsBadRequest},
		{
			name:       "admission refuses",
			ctx:        request.WithUser(context.Background(), &user.DefaultInfo{Name: "a"}),
			validation: func(context.Context, runtime.Object) error { return refused },
			want:       apierrors.IsForbidden,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStorage()["selfsubjectreviews"].(rest.Creater)
			_, err := s.Create(tt.ctx, &authenticationv1.SelfSubjectReview{}, tt.validation, &metav1.CreateOptions{})
			if !tt.want(err) {
				t.Errorf("err = %v", err)
			}
		})
	}
}
