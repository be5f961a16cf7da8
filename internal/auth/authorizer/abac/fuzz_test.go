package abac

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// FuzzABACPolicyLine feeds arbitrary lines to the policy parser. A line
// either fails or gives a policy that (1) never lets an unauthenticated
// user in through a "*" subject and (2) survives a v1beta1 round trip.
func FuzzABACPolicyLine(f *testing.F) {
	for _, seed := range []string{
		`{"user":"admin"}`,
		`{"user":"scheduler", "readonly": true, "resource": "pods"}`,
		`{"user":"alice", "namespace": "projectCaribou"}`,
		`{"user":"*"}`,
		`{}`,
		`{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}`,
		`{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "system:unauthenticated", "readonly": true, "nonResourcePath": "*"}}`,
		`{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "*", "nonResourcePath": "/logs/*"}}`,
		`{"apiVersion":"v1","kind":"Pod"}`,
		`user: alice`,
		`{"user":`,
		"\x00",
	} {
		f.Add(seed)
	}
	anon := &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}
	f.Fuzz(func(t *testing.T, line string) {
		p, _, err := parseLine([]byte(line))
		if err != nil {
			return
		}
		if p.User == "*" || p.Group == "*" {
			t.Fatalf("a * subject survived conversion: %+v", p)
		}
		a := &Authorizer{policies: []policy{p}}
		for _, attrs := range []authorizer.Attributes{
			{User: anon, Verb: "get", Path: "/healthz"},
			{User: anon, Verb: "delete", Namespace: "ns", Resource: "secrets", ResourceRequest: true},
		} {
			d, _, _ := a.Authorize(context.Background(), attrs)
			if d == authorizer.DecisionAllow && p.User != user.Anonymous && p.Group != user.AllUnauthenticated {
				t.Fatalf("policy %+v lets anonymous %+v in", p, attrs)
			}
		}
		b, err := json.Marshal(v1beta1Policy{typeMeta: typeMeta{APIVersion: v1beta1, Kind: policyKind}, Spec: p})
		if err != nil {
			t.Fatal(err)
		}
		back, legacy, err := parseLine(b)
		if err != nil || legacy || back != p {
			t.Fatalf("round trip of %+v gave %+v (legacy %v, err %v)", p, back, legacy, err)
		}
	})
}
