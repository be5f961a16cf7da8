package rbac

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
)

// TestIndexFollowsInformers runs the indexed authorizer over started
// informers: bindings created, changed and deleted through the API change
// its decisions.
func TestIndexFollowsInformers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cs := fake.NewClientset(
		clusterRole("pod-reader", rule(list("get"), list(""), list("pods"))),
		role("team", "secret-reader", rule(list("get"), list(""), list("secrets"))),
	)
	factory := informers.NewSharedInformerFactory(cs, 0)
	a, err := NewFromInformers(factory.Rbac().V1())
	if err != nil {
		t.Fatal(err)
	}
	// A second authorizer over the same informers reuses the indexes.
	if _, err := NewFromInformers(factory.Rbac().V1()); err != nil {
		t.Fatalf("second NewFromInformers: %v", err)
	}
	factory.Start(ctx.Done())
	t.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.WaitForCacheSync(ctx.Done())

	bob := &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}
	getPods := authorizer.Attributes{User: bob, ResourceRequest: true, Verb: "get", Namespace: "team", Resource: "pods"}
	getSecrets := authorizer.Attributes{User: bob, ResourceRequest: true, Verb: "get", Namespace: "team", Resource: "secrets"}
	waitFor := func(attrs authorizer.Attributes, want authorizer.Decision) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			got, _, err := a.Authorize(ctx, attrs)
			return got == want, err
		})
		if err != nil {
			t.Fatalf("%s %s: decision never became %v: %v", attrs.Verb, attrs.Resource, want, err)
		}
	}
	rbac := cs.RbacV1()

	waitFor(getPods, authorizer.DecisionNoOpinion)
	if _, err := rbac.ClusterRoleBindings().Create(ctx, crb("all", "pod-reader", groupSubject(user.AllAuthenticated)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(getPods, authorizer.DecisionAllow)

	binding := rb("team", "bob", "Role", "secret-reader", userSubject("someone-else"))
	if _, err := rbac.RoleBindings("team").Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding.Subjects = append(binding.Subjects, userSubject("bob"))
	if _, err := rbac.RoleBindings("team").Update(ctx, binding, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(getSecrets, authorizer.DecisionAllow)

	if err := rbac.ClusterRoleBindings().Delete(ctx, "all", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(getPods, authorizer.DecisionNoOpinion)
	if err := rbac.RoleBindings("team").Delete(ctx, "bob", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(getSecrets, authorizer.DecisionNoOpinion)
}

// TestIndexAgreesWithScan compares the two binding sources on random
// policies: the index must find every binding the scan finds.
func TestIndexAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"u0", "u1", "u2", "g0", "g1", "sa0"}
	namespaces := []string{"ns0", "ns1", ""}
	subject := func() (s struct{ kind, ns, name string }) {
		s.name = names[r.IntN(len(names))]
		switch r.IntN(3) {
		case 0:
			s.kind = "User"
		case 1:
			s.kind = "Group"
		default:
			s.kind, s.ns = "ServiceAccount", namespaces[r.IntN(len(namespaces))]
		}
		return s
	}
	verbs := []string{"get", "list", "delete"}
	var objs []runtime.Object
	for _, v := range verbs {
		objs = append(objs, clusterRole(v, rule(list(v), list(""), list("pods"))))
		objs = append(objs, role("ns0", v, rule(list(v), list(""), list("secrets"))))
	}
	for i := range 60 {
		s := subject()
		sub := userSubject(s.name)
		switch s.kind {
		case "Group":
			sub = groupSubject(s.name)
		case "ServiceAccount":
			sub = saSubject(s.ns, s.name)
		}
		v := verbs[r.IntN(len(verbs))]
		if i%2 == 0 {
			objs = append(objs, crb(fmt.Sprintf("b%d", i), v, sub))
		} else {
			objs = append(objs, rb(namespaces[r.IntN(2)], fmt.Sprintf("b%d", i), "Role", v, sub))
		}
	}
	as := variants(t, objs...)
	users := []user.Info{
		&user.DefaultInfo{Name: "u0"}, &user.DefaultInfo{Name: "u1", Groups: []string{"g0"}},
		&user.DefaultInfo{Name: "u2", Groups: []string{"g0", "g1"}},
		&user.DefaultInfo{Name: "system:serviceaccount:ns0:sa0"}, &user.DefaultInfo{Name: "system:serviceaccount:ns1:sa0", Groups: []string{"g1"}},
	}
	allowed := 0
	for _, u := range users {
		for _, ns := range namespaces {
			for _, v := range verbs {
				for _, res := range []string{"pods", "secrets"} {
					attrs := authorizer.Attributes{User: u, ResourceRequest: true, Verb: v, Namespace: ns, Resource: res}
					scan, _, _ := as["lister"].Authorize(context.Background(), attrs)
					index, _, _ := as["index"].Authorize(context.Background(), attrs)
					if scan != index {
						t.Errorf("%s %s %s in %q: scan %v, index %v", u.GetName(), v, res, ns, scan, index)
					}
					if scan == authorizer.DecisionAllow {
						allowed++
					}
				}
			}
		}
	}
	if allowed == 0 {
		t.Error("no request was allowed: the comparison proves nothing")
	}
}
