package rbac

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/auth/authenticator/bearertoken"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/group"
	"github.com/kapi-dev/kapi/internal/auth/authenticator/tokenfile"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// BenchmarkAuthorize1000 authorizes one request of a user with one binding
// among 1,000 roles and 1,000 bindings of other users and groups (500 of
// each kind, the role bindings in the request's namespace).
func BenchmarkAuthorize1000(b *testing.B) {
	var objs []runtime.Object
	for i := range 500 {
		r := rule(list("get", "list"), list("example.com"), list(fmt.Sprintf("things%d", i)))
		objs = append(objs,
			clusterRole(fmt.Sprintf("cr%d", i), r),
			role("team", fmt.Sprintf("r%d", i), r),
			crb(fmt.Sprintf("crb%d", i), fmt.Sprintf("cr%d", i), userSubject(fmt.Sprintf("user%d", i)), groupSubject(fmt.Sprintf("group%d", i))),
			rb("team", fmt.Sprintf("rb%d", i), "Role", fmt.Sprintf("r%d", i), userSubject(fmt.Sprintf("user%d", i)), saSubject("", fmt.Sprintf("sa%d", i))),
		)
	}
	objs = append(objs, rb("team", "tested", "Role", "r499", userSubject("tested")))
	attrs := authorizer.Attributes{
		User:            &user.DefaultInfo{Name: "tested", Groups: []string{"dev", user.AllAuthenticated}},
		ResourceRequest: true, Verb: "list", Namespace: "team", APIGroup: "example.com", APIVersion: "v1", Resource: "things499",
	}
	for name, a := range variants(b, objs...) {
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if d, _, _ := a.Authorize(ctx, attrs); d != authorizer.DecisionAllow {
					b.Fatalf("decision %v, want allow", d)
				}
			}
		})
	}
}

// BenchmarkAuthenticateAndAuthorize1000 is what security adds to one
// request: a bearer token looked up in a token file, the
// system:authenticated group, and RBAC over 1,000 roles and bindings.
func BenchmarkAuthenticateAndAuthorize1000(b *testing.B) {
	var objs []runtime.Object
	for i := range 500 {
		r := rule(list("get", "list"), list("example.com"), list(fmt.Sprintf("things%d", i)))
		objs = append(objs,
			clusterRole(fmt.Sprintf("cr%d", i), r),
			role("team", fmt.Sprintf("r%d", i), r),
			crb(fmt.Sprintf("crb%d", i), fmt.Sprintf("cr%d", i), userSubject(fmt.Sprintf("user%d", i))),
			rb("team", fmt.Sprintf("rb%d", i), "Role", fmt.Sprintf("r%d", i), userSubject(fmt.Sprintf("user%d", i))),
		)
	}
	objs = append(objs, rb("team", "tested", "Role", "r499", userSubject("tested")))
	tokens := filepath.Join(b.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("tok-tested,tested,uid-1,\"dev\"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	tf, err := tokenfile.NewCSV(tokens)
	if err != nil {
		b.Fatal(err)
	}
	authn := group.NewAuthenticatedGroupAdder(bearertoken.New(tf))
	req, _ := http.NewRequest(http.MethodGet, "https://kapi/apis/example.com/v1/namespaces/team/things499", nil)
	req.Header.Set("Authorization", "Bearer tok-tested")
	a := variants(b, objs...)["index"]
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		resp, ok, err := authn.AuthenticateRequest(req)
		if !ok || err != nil {
			b.Fatalf("authentication: %v %v", ok, err)
		}
		attrs := authorizer.Attributes{User: resp.User, ResourceRequest: true, Verb: "list", Namespace: "team",
			APIGroup: "example.com", APIVersion: "v1", Resource: "things499"}
		if d, _, _ := a.Authorize(ctx, attrs); d != authorizer.DecisionAllow {
			b.Fatalf("decision %v, want allow", d)
		}
	}
}
