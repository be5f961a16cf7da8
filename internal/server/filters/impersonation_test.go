package filters

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// impersonationAuthz allows the impersonations listed by key
// (resource[/subresource] namespace/name, see attrKey) and records what it
// was asked.
type impersonationAuthz struct {
	allowed map[string]bool
	reason  string
	err     error
	asked   []string
}

func attrKey(a authorizer.Attributes) string {
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	if a.APIGroup != "" {
		res += "." + a.APIGroup
	}
	return a.Verb + " " + res + " " + a.Namespace + "/" + a.Name
}

func (z *impersonationAuthz) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	k := attrKey(a)
	z.asked = append(z.asked, k)
	if z.err != nil {
		return authorizer.DecisionNoOpinion, z.reason, z.err
	}
	if z.allowed[k] && a.User.GetName() == "alice" && a.ResourceRequest {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, z.reason, nil
}

func allow(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// captureUser records the user and impersonation headers the next handler sees.
type captureUser struct {
	user    user.Info
	headers []string
}

func (c *captureUser) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.user, _ = request.UserFrom(r.Context())
	for k := range r.Header {
		if strings.HasPrefix(k, "Impersonate") {
			c.headers = append(c.headers, k)
		}
	}
	w.WriteHeader(http.StatusOK)
}

func TestWithImpersonation(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"devs", user.AllAuthenticated}, Extra: map[string][]string{"orig": {"1"}}}
	tests := []struct {
		name      string
		requestor user.Info // nil: none in the context
		headers   map[string][]string
		allowed   map[string]bool
		reason    string
		authzErr  error

		wantCode    int
		wantMessage string
		wantUser    *user.DefaultInfo // for 200
		wantAsked   []string
	}{
		{
			name: "no impersonation", requestor: alice,
			wantCode: 200, wantUser: alice,
		},
		{
			name: "user", requestor: alice,
			headers:  map[string][]string{"Impersonate-User": {"bob"}},
			allowed:  allow("impersonate users /bob"),
			wantCode: 200, wantUser: &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}, Extra: map[string][]string{}},
			wantAsked: []string{"impersonate users /bob"},
		},
		{
			name: "user denied", requestor: alice,
			headers:     map[string][]string{"Impersonate-User": {"bob"}},
			wantCode:    403,
			wantMessage: `users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`,
			wantAsked:   []string{"impersonate users /bob"},
		},
		{
			name: "user denied with reason", requestor: alice,
			headers:     map[string][]string{"Impersonate-User": {"bob"}},
			reason:      "no RBAC policy matched",
			wantCode:    403,
			wantMessage: `users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: no RBAC policy matched`,
		},
		{
			name: "authorizer error is a 403", requestor: alice,
			headers:  map[string][]string{"Impersonate-User": {"bob"}},
			allowed:  allow("impersonate users /bob"),
			authzErr: errors.New("webhook down"),
			wantCode: 403,
		},
		{
			name: "user and groups", requestor: alice,
			headers:   map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Group": {"g1", "g2"}},
			allowed:   allow("impersonate users /bob", "impersonate groups /g1", "impersonate groups /g2"),
			wantCode:  200,
			wantUser:  &user.DefaultInfo{Name: "bob", Groups: []string{"g1", "g2", user.AllAuthenticated}, Extra: map[string][]string{}},
			wantAsked: []string{"impersonate users /bob", "impersonate groups /g1", "impersonate groups /g2"},
		},
		{
			name: "one group denied", requestor: alice,
			headers:     map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Group": {"g1", "system:masters"}},
			allowed:     allow("impersonate users /bob", "impersonate groups /g1"),
			wantCode:    403,
			wantMessage: `groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope`,
		},
		{
			name: "authenticated group named", requestor: alice,
			headers:  map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Group": {user.AllAuthenticated}},
			allowed:  allow("impersonate users /bob", "impersonate groups /system:authenticated"),
			wantCode: 200,
			wantUser: &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}, Extra: map[string][]string{}},
		},
		{
			name: "unauthenticated group named", requestor: alice,
			headers:  map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Group": {user.AllUnauthenticated}},
			allowed:  allow("impersonate users /bob", "impersonate groups /system:unauthenticated"),
			wantCode: 200,
			wantUser: &user.DefaultInfo{Name: "bob", Groups: []string{user.AllUnauthenticated}, Extra: map[string][]string{}},
		},
		{
			name: "anonymous", requestor: alice,
			headers:  map[string][]string{"Impersonate-User": {user.Anonymous}},
			allowed:  allow("impersonate users /system:anonymous"),
			wantCode: 200,
			wantUser: &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}, Extra: map[string][]string{}},
		},
		{
			name: "service account", requestor: alice,
			headers:  map[string][]string{"Impersonate-User": {"system:serviceaccount:ns:builder"}},
			allowed:  allow("impersonate serviceaccounts ns/builder"),
			wantCode: 200,
			wantUser: &user.DefaultInfo{Name: "system:serviceaccount:ns:builder",
				Groups: []string{"system:serviceaccounts", "system:serviceaccounts:ns", user.AllAuthenticated}, Extra: map[string][]string{}},
			wantAsked: []string{"impersonate serviceaccounts ns/builder"},
		},
		{
			name: "service account with groups", requestor: alice,
			headers:  map[string][]string{"Impersonate-User": {"system:serviceaccount:ns:builder"}, "Impersonate-Group": {"g"}},
			allowed:  allow("impersonate serviceaccounts ns/builder", "impersonate groups /g"),
			wantCode: 200,
			wantUser: &user.DefaultInfo{Name: "system:serviceaccount:ns:builder", Groups: []string{"g", user.AllAuthenticated}, Extra: map[string][]string{}},
		},
		{
			name: "service account denied", requestor: alice,
			headers:     map[string][]string{"Impersonate-User": {"system:serviceaccount:ns:builder"}},
			wantCode:    403,
			wantMessage: `serviceaccounts "builder" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns"`,
		},
		{
			name: "malformed service account name is a user", requestor: alice,
			headers:   map[string][]string{"Impersonate-User": {"system:serviceaccount:NS:a:b"}},
			allowed:   allow("impersonate users /system:serviceaccount:NS:a:b"),
			wantCode:  200,
			wantUser:  &user.DefaultInfo{Name: "system:serviceaccount:NS:a:b", Groups: []string{user.AllAuthenticated}, Extra: map[string][]string{}},
			wantAsked: []string{"impersonate users /system:serviceaccount:NS:a:b"},
		},
		{
			name: "uid", requestor: alice,
			headers:   map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Uid": {"1234"}},
			allowed:   allow("impersonate users /bob", "impersonate uids.authentication.k8s.io /1234"),
			wantCode:  200,
			wantUser:  &user.DefaultInfo{Name: "bob", UID: "1234", Groups: []string{user.AllAuthenticated}, Extra: map[string][]string{}},
			wantAsked: []string{"impersonate users /bob", "impersonate uids.authentication.k8s.io /1234"},
		},
		{
			name: "uid denied", requestor: alice,
			headers:     map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Uid": {"1234"}},
			allowed:     allow("impersonate users /bob"),
			wantCode:    403,
			wantMessage: `uids.authentication.k8s.io "1234" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`,
		},
		{
			name: "extras", requestor: alice,
			headers: map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Extra-Scopes": {"a", "b"},
				"Impersonate-Extra-Example.com%2fteam": {"x"}},
			allowed: allow("impersonate users /bob", "impersonate userextras/scopes.authentication.k8s.io /a",
				"impersonate userextras/scopes.authentication.k8s.io /b", "impersonate userextras/example.com/team.authentication.k8s.io /x"),
			wantCode: 200,
			wantUser: &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated},
				Extra: map[string][]string{"scopes": {"a", "b"}, "example.com/team": {"x"}}},
			wantAsked: []string{"impersonate users /bob", "impersonate userextras/example.com/team.authentication.k8s.io /x",
				"impersonate userextras/scopes.authentication.k8s.io /a", "impersonate userextras/scopes.authentication.k8s.io /b"},
		},
		{
			name: "malformed extra escape kept", requestor: alice,
			headers:  map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Extra-A%zz": {"v"}},
			allowed:  allow("impersonate users /bob", "impersonate userextras/a%zz.authentication.k8s.io /v"),
			wantCode: 200,
			wantUser: &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}, Extra: map[string][]string{"a%zz": {"v"}}},
		},
		{
			name: "extra denied", requestor: alice,
			headers:     map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Extra-Scopes": {"a", "b"}},
			allowed:     allow("impersonate users /bob", "impersonate userextras/scopes.authentication.k8s.io /a"),
			wantCode:    403,
			wantMessage: `userextras.authentication.k8s.io "b" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope`,
		},
		{
			name: "group without user", requestor: alice,
			headers:     map[string][]string{"Impersonate-Group": {"g1"}},
			wantCode:    400,
			wantMessage: "requested [{Group  g1    }] without impersonating a user",
		},
		{
			name: "uid without user", requestor: alice,
			headers:     map[string][]string{"Impersonate-Uid": {"1"}},
			wantCode:    400,
			wantMessage: "requested [{UID  1  authentication.k8s.io/v1  }] without impersonating a user",
		},
		{
			name: "extra without user", requestor: alice,
			headers:     map[string][]string{"Impersonate-User": {""}, "Impersonate-Extra-K": {"v"}},
			wantCode:    400,
			wantMessage: "requested [{UserExtra  v  authentication.k8s.io/v1  k}] without impersonating a user",
		},
		{
			name:        "no requestor",
			headers:     map[string][]string{"Impersonate-User": {"bob"}},
			wantCode:    500,
			wantMessage: "Internal error occurred: no user found for request",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := &impersonationAuthz{allowed: tt.allowed, reason: tt.reason, err: tt.authzErr}
			next := &captureUser{}
			h := WithImpersonation(next, z)
			r := httptest.NewRequest("GET", "/api/v1/namespaces/ns/pods", nil)
			for k, v := range tt.headers {
				r.Header[k] = v
			}
			if tt.requestor != nil {
				r = r.WithContext(request.WithUser(r.Context(), tt.requestor))
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d; body %s", rec.Code, tt.wantCode, rec.Body)
			}
			if tt.wantAsked != nil {
				if diff := cmp.Diff(tt.wantAsked, z.asked); diff != "" {
					t.Errorf("authorizer asked (-want +got):\n%s", diff)
				}
			}
			if rec.Code != 200 {
				s := decodeStatus(t, rec)
				if tt.wantMessage != "" && s.Message != tt.wantMessage {
					t.Errorf("message = %q\n      want %q", s.Message, tt.wantMessage)
				}
				if next.user != nil {
					t.Error("the next handler ran")
				}
				return
			}
			var got *user.DefaultInfo
			if next.user != nil {
				u := next.user
				got = &user.DefaultInfo{Name: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: u.GetExtra()}
			}
			if diff := cmp.Diff(tt.wantUser, got); diff != "" {
				t.Errorf("user (-want +got):\n%s", diff)
			}
			if len(next.headers) > 0 {
				t.Errorf("impersonation headers reached the handler: %v", next.headers)
			}
		})
	}
}

// FuzzImpersonationHeaders feeds arbitrary header values through the
// filter: it must answer 200, 400 or 403 and never panic, and a request that
// goes on carries no impersonation header.
func FuzzImpersonationHeaders(f *testing.F) {
	f.Add("bob", "g1", "scopes", "a", "1234", uint8(0))
	f.Add("system:serviceaccount:ns:sa", "", "", "", "", uint8(1))
	f.Add("", "system:masters", "", "", "", uint8(2))
	f.Add("system:serviceaccount:", "", "%", "%zz", "", uint8(3))
	f.Add("system:anonymous", "system:unauthenticated", "A%2Fb", "\x00", "\xff", uint8(255))
	f.Fuzz(func(t *testing.T, userName, group, extraKey, extraValue, uid string, allowMask uint8) {
		z := authorizer.Func(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
			// Allow by a bit per kind of check, so both outcomes are explored.
			bit := map[string]uint8{"users": 1, "serviceaccounts": 2, "groups": 4, "userextras": 8, "uids": 16}[a.Resource]
			if allowMask&bit != 0 {
				return authorizer.DecisionAllow, "", nil
			}
			return authorizer.DecisionDeny, "denied", nil
		})
		next := &captureUser{}
		h := WithImpersonation(next, z)
		r := httptest.NewRequest("GET", "/api", nil)
		r.Header["Impersonate-User"] = []string{userName}
		if group != "" {
			r.Header["Impersonate-Group"] = []string{group}
		}
		if extraKey != "" {
			r.Header["Impersonate-Extra-"+extraKey] = []string{extraValue}
		}
		r.Header["Impersonate-Uid"] = []string{uid}
		r = r.WithContext(request.WithUser(r.Context(), &user.DefaultInfo{Name: "alice"}))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if !slices.Contains([]int{200, 400, 403}, rec.Code) {
			t.Fatalf("code %d: %s", rec.Code, rec.Body)
		}
		if rec.Code == 200 {
			if len(next.headers) > 0 {
				t.Errorf("impersonation headers reached the handler: %v", next.headers)
			}
			if userName != "" && next.user.GetName() != userName {
				t.Errorf("acting as %q, asked for %q", next.user.GetName(), userName)
			}
		}
	})
}

func BenchmarkWithImpersonation(b *testing.B) {
	z := authorizer.Func(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionAllow, "", nil
	})
	h := WithImpersonation(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), z)
	alice := &user.DefaultInfo{Name: "alice"}
	for b.Loop() {
		r := httptest.NewRequest("GET", "/api", nil)
		r.Header.Set("Impersonate-User", "bob")
		r.Header.Add("Impersonate-Group", "g")
		h.ServeHTTP(httptest.NewRecorder(), r.WithContext(request.WithUser(r.Context(), alice)))
	}
}
