package policybased

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	rbacinformers "k8s.io/client-go/informers/rbac/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rbac/clusterrole"
	"github.com/kapi-dev/kapi/internal/registry/rbac/clusterrolebinding"
	"github.com/kapi-dev/kapi/internal/registry/rbac/role"
	"github.com/kapi-dev/kapi/internal/registry/rbac/rolebinding"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

var (
	podReader    = rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	secretReader = rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"secrets"}}
	everything   = rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}
	allURLs      = rbacv1.PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}
)

// Who is who: alice reads pods in "team"; bob reads pods cluster-wide;
// root holds everything through RBAC; masters is in system:masters with no
// binding; eve may "escalate" and "bind" (by the fake authorizer) but holds
// nothing.
var (
	alice   = &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}
	bob     = &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}
	root    = &user.DefaultInfo{Name: "root", Groups: []string{user.AllAuthenticated}}
	masters = &user.DefaultInfo{Name: "m", Groups: []string{user.SystemPrivilegedGroup}}
	eve     = &user.DefaultInfo{Name: "eve", Groups: []string{user.AllAuthenticated}}
)

// rbacPolicy is what the rule resolver sees.
func rbacPolicy(t *testing.T) *rbac.Authorizer {
	t.Helper()
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Rbac().V1()
	a, err := rbac.NewFromInformers(f)
	if err != nil {
		t.Fatal(err)
	}
	add(t, f,
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "pod-reader"}, Rules: []rbacv1.PolicyRule{podReader}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "secret-reader"}, Rules: []rbacv1.PolicyRule{secretReader}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin"}, Rules: []rbacv1.PolicyRule{everything, allURLs}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "pods"}, Rules: []rbacv1.PolicyRule{podReader}},
		&rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "alice"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "pod-reader"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "alice"}},
		},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "bob"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "pod-reader"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "bob"}},
		},
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "root"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "root"}},
		},
	)
	return a
}

func add(t *testing.T, f rbacinformers.Interface, objs ...runtime.Object) {
	t.Helper()
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *rbacv1.Role:
			err = f.Roles().Informer().GetStore().Add(o)
		case *rbacv1.ClusterRole:
			err = f.ClusterRoles().Informer().GetStore().Add(o)
		case *rbacv1.RoleBinding:
			err = f.RoleBindings().Informer().GetStore().Add(o)
		case *rbacv1.ClusterRoleBinding:
			err = f.ClusterRoleBindings().Informer().GetStore().Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// fakeAuthz lets eve "escalate" and "bind" anything, and records what it
// was asked.
type fakeAuthz struct{ asked []authorizer.Attributes }

func (f *fakeAuthz) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	f.asked = append(f.asked, a)
	if a.User.GetName() == "eve" && (a.Verb == "escalate" || a.Verb == "bind") {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

type storages map[Kind]rest.StandardStorage

// innerStorages are the plain generic stores of the four resources over
// one memory backend.
func innerStorages(t *testing.T) map[Kind]rest.Storage {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	opts := registrytest.NewOptionsGetter(t, scheme)
	build := map[Kind]struct {
		resource string
		new      func(*runtime.Scheme, generic.RESTOptionsGetter) (map[string]rest.Storage, error)
	}{
		Role:               {"roles", role.NewStorage},
		ClusterRole:        {"clusterroles", clusterrole.NewStorage},
		RoleBinding:        {"rolebindings", rolebinding.NewStorage},
		ClusterRoleBinding: {"clusterrolebindings", clusterrolebinding.NewStorage},
	}
	out := map[Kind]rest.Storage{}
	for kind, b := range build {
		m, err := b.new(scheme, opts)
		if err != nil {
			t.Fatal(err)
		}
		out[kind] = m[b.resource]
	}
	return out
}

// newStorages wraps the stores with authz and the test's RBAC policy.
func newStorages(t *testing.T, authz authorizer.Authorizer) storages {
	t.Helper()
	rules := rbacPolicy(t)
	out := storages{}
	for kind, inner := range innerStorages(t) {
		out[kind] = Wrap(kind, inner, authz, rules).(rest.StandardStorage)
	}
	return out
}
