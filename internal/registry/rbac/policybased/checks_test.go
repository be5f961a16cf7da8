package policybased

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

const escalationPrefix = ` is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:` + "\n"

// requestCtx is a request of u in ns; info, when set, is its RequestInfo.
func requestCtx(u user.Info, ns string, info *request.RequestInfo) context.Context {
	ctx := request.WithNamespace(context.Background(), ns)
	if u != nil {
		ctx = request.WithUser(ctx, u)
	}
	if info != nil {
		ctx = request.WithRequestInfo(ctx, info)
	}
	return ctx
}

func roleInfo(resource, ns string) *request.RequestInfo {
	return &request.RequestInfo{IsResourceRequest: true, Verb: "create", APIGroup: rbacv1.GroupName, APIVersion: "v1", Resource: resource, Namespace: ns}
}

func newRole(ns, name string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
}

func newClusterRole(name string, agg bool, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	r := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	if agg {
		r.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"agg": "yes"}}}}
	}
	return r
}

func ref(kind, name string) rbacv1.RoleRef {
	return rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: name}
}

var subjects = []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "someone"}}

func newRoleBinding(ns, name string, r rbacv1.RoleRef) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, RoleRef: r, Subjects: subjects}
}

func newClusterRoleBinding(name string, r rbacv1.RoleRef) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, RoleRef: r, Subjects: subjects}
}

// checkErr compares an error with the wanted HTTP code and message (code 0:
// no error).
func checkErr(t *testing.T, err error, code int32, msg string) {
	t.Helper()
	if code == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		t.Fatalf("error %v (%T), want a %d Status", err, err, code)
	}
	if got := status.Status(); got.Code != code || got.Message != msg {
		t.Errorf("got %d %q\nwant %d %q", got.Code, got.Message, code, msg)
	}
}

func TestCreate(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		u    user.Info
		ns   string
		info *request.RequestInfo
		obj  runtime.Object
		code int32
		msg  string
		// asked is what the authorizer must have been asked last.
		asked *authorizer.Attributes
	}{
		{name: "role within the user's rules", kind: Role, u: alice, ns: "team", obj: newRole("team", "r", podReader)},
		{name: "role beyond the user's rules", kind: Role, u: alice, ns: "team", obj: newRole("team", "r", podReader, secretReader), code: 403,
			msg: `roles.rbac.authorization.k8s.io "r"` + escalationPrefix + `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`},
		{name: "role binding rules stay in their namespace", kind: Role, u: alice, ns: "other", obj: newRole("other", "r", podReader), code: 403,
			msg: `roles.rbac.authorization.k8s.io "r"` + escalationPrefix + `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`},
		{name: "cluster rules apply in every namespace", kind: Role, u: bob, ns: "other", obj: newRole("other", "r", podReader)},
		{name: "system:masters writes any role", kind: Role, u: masters, ns: "team", obj: newRole("team", "r", everything)},
		{name: "escalate verb", kind: Role, u: eve, ns: "team", info: roleInfo("roles", "team"), obj: newRole("team", "r", everything),
			asked: &authorizer.Attributes{User: eve, Verb: "escalate", Namespace: "team", APIGroup: rbacv1.GroupName, APIVersion: "*", Resource: "roles", ResourceRequest: true}},
		{name: "escalate needs the request info", kind: Role, u: eve, ns: "team", obj: newRole("team", "r", podReader), code: 403,
			msg: `roles.rbac.authorization.k8s.io "r" is forbidden: user "eve" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:` + "\n" +
				`{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`},
		{name: "escalate is only asked about role resources", kind: Role, u: eve, ns: "team", info: roleInfo("pods", "team"), obj: newRole("team", "r", podReader), code: 403,
			msg: `roles.rbac.authorization.k8s.io "r" is forbidden: user "eve" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:` + "\n" +
				`{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`},
		{name: "no user", kind: Role, ns: "team", obj: newRole("team", "r", podReader), code: 403,
			msg: `roles.rbac.authorization.k8s.io "r" is forbidden: no user on context`},

		{name: "cluster role within the user's rules", kind: ClusterRole, u: bob, obj: newClusterRole("c", false, podReader)},
		{name: "cluster role beyond the user's rules", kind: ClusterRole, u: alice, obj: newClusterRole("c", false, podReader), code: 403,
			msg: `clusterroles.rbac.authorization.k8s.io "c" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:` + "\n" +
				`{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`},
		{name: "aggregation rule needs cluster-admin", kind: ClusterRole, u: bob, obj: newClusterRole("agg", true), code: 403,
			msg: `clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`},
		{name: "aggregation rule by cluster-admin", kind: ClusterRole, u: root, obj: newClusterRole("agg", true)},
		{name: "escalate on cluster roles", kind: ClusterRole, u: eve, info: roleInfo("clusterroles", ""), obj: newClusterRole("agg", true, everything),
			asked: &authorizer.Attributes{User: eve, Verb: "escalate", APIGroup: rbacv1.GroupName, APIVersion: "*", Resource: "clusterroles", ResourceRequest: true}},

		{name: "binding a role the user holds", kind: RoleBinding, u: alice, ns: "team", obj: newRoleBinding("team", "b", ref("Role", "pods"))},
		{name: "binding a role the user does not hold", kind: RoleBinding, u: alice, ns: "team", obj: newRoleBinding("team", "b", ref("ClusterRole", "secret-reader")), code: 403,
			msg: `rolebindings.rbac.authorization.k8s.io "b"` + escalationPrefix + `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`},
		{name: "bind verb", kind: RoleBinding, u: eve, ns: "team", obj: newRoleBinding("team", "b", ref("ClusterRole", "cluster-admin")),
			asked: &authorizer.Attributes{User: eve, Verb: "bind", Namespace: "team", APIGroup: rbacv1.GroupName, Resource: "clusterroles", Name: "cluster-admin", ResourceRequest: true}},
		{name: "binding a missing role", kind: RoleBinding, u: alice, ns: "team", obj: newRoleBinding("team", "b", ref("Role", "nope")), code: 404,
			msg: `roles.rbac.authorization.k8s.io "nope" not found`},
		{name: "binding without a namespace", kind: RoleBinding, u: alice, obj: newRoleBinding("", "b", ref("Role", "pods")), code: 400,
			msg: "namespace is required"},
		{name: "system:masters binds anything", kind: RoleBinding, u: masters, ns: "team", obj: newRoleBinding("team", "b", ref("ClusterRole", "cluster-admin"))},

		{name: "cluster binding of held rules", kind: ClusterRoleBinding, u: bob, obj: newClusterRoleBinding("b", ref("ClusterRole", "pod-reader"))},
		{name: "cluster binding needs cluster-wide rules", kind: ClusterRoleBinding, u: alice, obj: newClusterRoleBinding("b", ref("ClusterRole", "pod-reader")), code: 403,
			msg: `clusterrolebindings.rbac.authorization.k8s.io "b"` + escalationPrefix + `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`},
		{name: "cluster bind verb", kind: ClusterRoleBinding, u: eve, obj: newClusterRoleBinding("b", ref("ClusterRole", "cluster-admin")),
			asked: &authorizer.Attributes{User: eve, Verb: "bind", APIGroup: rbacv1.GroupName, Resource: "clusterroles", Name: "cluster-admin", ResourceRequest: true}},
		{name: "cluster binding of a missing role", kind: ClusterRoleBinding, u: bob, obj: newClusterRoleBinding("b", ref("ClusterRole", "nope")), code: 404,
			msg: `clusterroles.rbac.authorization.k8s.io "nope" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			authz := &fakeAuthz{}
			s := newStorages(t, authz)[tt.kind]
			_, err := s.Create(requestCtx(tt.u, tt.ns, tt.info), tt.obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
			checkErr(t, err, tt.code, tt.msg)
			if tt.asked != nil {
				if len(authz.asked) == 0 {
					t.Fatal("the authorizer was not asked")
				}
				if diff := cmp.Diff(*tt.asked, authz.asked[len(authz.asked)-1]); diff != "" {
					t.Errorf("authorizer asked (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// mutate is an UpdatedObjectInfo that edits the stored object, as a patch
// does.
type mutate func(obj runtime.Object)

func (m mutate) Preconditions() *metav1.Preconditions { return nil }

func (m mutate) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	obj := old.DeepCopyObject()
	m(obj)
	return obj, nil
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name   string
		kind   Kind
		stored runtime.Object // created by system:masters
		u      user.Info
		ns     string
		change mutate
		code   int32
		msg    string
	}{
		{name: "finalizers and owners only", kind: Role, stored: newRole("team", "big", everything), u: alice, ns: "team",
			change: func(o runtime.Object) {
				r := o.(*rbacv1.Role)
				r.Finalizers = []string{"example.com/f"}
				r.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "u"}}
			}},
		{name: "any other change of a role beyond the user", kind: Role, stored: newRole("team", "big", podReader, secretReader), u: alice, ns: "team",
			change: func(o runtime.Object) { o.(*rbacv1.Role).Labels = map[string]string{"a": "b"} }, code: 403,
			msg: `roles.rbac.authorization.k8s.io "big"` + escalationPrefix + `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`},
		{name: "narrowing a role to the user's rules", kind: Role, stored: newRole("team", "big", podReader, secretReader), u: alice, ns: "team",
			change: func(o runtime.Object) { o.(*rbacv1.Role).Rules = []rbacv1.PolicyRule{podReader} }},
		{name: "removing an aggregation rule needs cluster-admin", kind: ClusterRole, stored: newClusterRole("agg", true), u: bob,
			change: func(o runtime.Object) {
				r := o.(*rbacv1.ClusterRole)
				r.AggregationRule, r.Rules = nil, []rbacv1.PolicyRule{podReader}
			}, code: 403,
			msg: `clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`},
		{name: "changing a binding's subjects", kind: RoleBinding, stored: newRoleBinding("team", "b", ref("ClusterRole", "secret-reader")), u: alice, ns: "team",
			change: func(o runtime.Object) {
				o.(*rbacv1.RoleBinding).Subjects = append(o.(*rbacv1.RoleBinding).Subjects, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"})
			}, code: 403,
			msg: `rolebindings.rbac.authorization.k8s.io "b"` + escalationPrefix + `{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`},
		{name: "changing a binding of held rules", kind: ClusterRoleBinding, stored: newClusterRoleBinding("b", ref("ClusterRole", "pod-reader")), u: bob,
			change: func(o runtime.Object) { o.(*rbacv1.ClusterRoleBinding).Subjects = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStorages(t, &fakeAuthz{})[tt.kind]
			ns := tt.ns
			if _, err := s.Create(requestCtx(masters, ns, nil), tt.stored, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			name := tt.stored.(metav1.Object).GetName()
			_, _, err := s.Update(requestCtx(tt.u, ns, nil), name, tt.change, rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
			checkErr(t, err, tt.code, tt.msg)
		})
	}
}

// TestInterfacesKept: the guard offers exactly the interfaces of the
// generic store the endpoints look for, so discovery does not change.
func TestInterfacesKept(t *testing.T) {
	ifaces := []reflect.Type{
		reflect.TypeFor[rest.Scoper](), reflect.TypeFor[rest.SingularNameProvider](), reflect.TypeFor[rest.ShortNamesProvider](),
		reflect.TypeFor[rest.CategoriesProvider](), reflect.TypeFor[rest.Getter](), reflect.TypeFor[rest.Lister](),
		reflect.TypeFor[rest.TableConvertor](), reflect.TypeFor[rest.Creater](), reflect.TypeFor[rest.NamedCreater](),
		reflect.TypeFor[rest.Updater](), reflect.TypeFor[rest.Patcher](), reflect.TypeFor[rest.GracefulDeleter](),
		reflect.TypeFor[rest.CollectionDeleter](), reflect.TypeFor[rest.Watcher](), reflect.TypeFor[rest.Connecter](),
		reflect.TypeFor[rest.GroupVersionKindProvider](), reflect.TypeFor[rest.ResetFieldsStrategy](),
		reflect.TypeFor[interface{ StorageVersion() }](),
	}
	for kind, inner := range innerStorages(t) {
		wrapped := Wrap(kind, inner, &fakeAuthz{}, nil)
		for _, it := range ifaces {
			if got, want := reflect.TypeOf(wrapped).Implements(it), reflect.TypeOf(inner).Implements(it); got != want {
				t.Errorf("kind %d: implements %v = %v, inner %v", kind, it, got, want)
			}
		}
		if got, want := wrapped.(rest.Scoper).NamespaceScoped(), inner.(rest.Scoper).NamespaceScoped(); got != want {
			t.Errorf("kind %d: NamespaceScoped = %v, want %v", kind, got, want)
		}
	}
}
