package group

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/authenticator"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

var errBad = errors.New("bad credential")

func TestAuthenticatedGroupAdder(t *testing.T) {
	tests := []struct {
		name     string
		user     *user.DefaultInfo // nil: the inner authenticator has no opinion
		err      error
		want     *user.DefaultInfo
		wantSame bool // the inner user returned untouched
	}{
		{name: "no opinion"},
		{name: "error", err: errBad},
		{name: "added",
			user: &user.DefaultInfo{Name: "alice", UID: "1", Groups: []string{"dev"}, Extra: map[string][]string{"scopes": {"a"}}},
			want: &user.DefaultInfo{Name: "alice", UID: "1", Groups: []string{"dev", "system:authenticated"}, Extra: map[string][]string{"scopes": {"a"}}}},
		{name: "no groups", user: &user.DefaultInfo{Name: "bob"},
			want: &user.DefaultInfo{Name: "bob", Groups: []string{"system:authenticated"}}},
		{name: "already authenticated", user: &user.DefaultInfo{Name: "carol", Groups: []string{"system:authenticated", "dev"}}, wantSame: true},
		{name: "unauthenticated left alone", user: &user.DefaultInfo{Name: "dave", Groups: []string{"system:unauthenticated"}}, wantSame: true},
		{name: "anonymous left alone", user: &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"other"}}, wantSame: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before *user.DefaultInfo
			if tt.user != nil {
				copied := *tt.user
				before = &copied
			}
			inner := authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
				if tt.user == nil {
					return nil, false, tt.err
				}
				return &authenticator.Response{User: tt.user, Audiences: []string{"api"}}, true, nil
			})
			resp, ok, err := NewAuthenticatedGroupAdder(inner).AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
			if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if ok != (tt.user != nil) {
				t.Fatalf("ok = %v, want %v", ok, tt.user != nil)
			}
			if !ok {
				return
			}
			want := tt.want
			if tt.wantSame {
				want = before
				if resp.User != user.Info(tt.user) {
					t.Errorf("user replaced although it needed no change")
				}
			}
			if diff := cmp.Diff(want, resp.User); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.user); diff != "" {
				t.Errorf("inner user was changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"api"}, resp.Audiences); diff != "" {
				t.Errorf("audiences (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSpareCapacityNotShared checks appending the group cannot write into
// the backing array of the inner user's groups.
func TestSpareCapacityNotShared(t *testing.T) {
	groups := make([]string, 1, 4)
	groups[0] = "dev"
	shared := &user.DefaultInfo{Name: "alice", Groups: groups}
	inner := authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
		return &authenticator.Response{User: shared}, true, nil
	})
	a := NewAuthenticatedGroupAdder(inner)
	first, _, _ := a.AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
	second, _, _ := a.AuthenticateRequest(httptest.NewRequest("GET", "/", nil))
	first.User.GetGroups()[1] = "system:masters"
	if got := second.User.GetGroups(); !cmp.Equal(got, []string{"dev", "system:authenticated"}) {
		t.Errorf("groups = %q after a caller changed an earlier response", got)
	}
}
