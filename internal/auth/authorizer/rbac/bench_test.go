package rbac

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

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
