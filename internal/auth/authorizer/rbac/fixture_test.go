package rbac

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// variants builds both authorizers over the same objects: the lister one
// (scanning every binding) and the indexed one. Objects go straight into
// the informers' stores; nothing is started.
func variants(tb testing.TB, objs ...runtime.Object) map[string]*Authorizer {
	tb.Helper()
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Rbac().V1()
	indexed, err := NewFromInformers(f)
	if err != nil {
		tb.Fatal(err)
	}
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
		default:
			tb.Fatalf("unexpected %T", o)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	return map[string]*Authorizer{
		"lister": New(f.Roles().Lister(), f.RoleBindings().Lister(), f.ClusterRoles().Lister(), f.ClusterRoleBindings().Lister()),
		"index":  indexed,
	}
}

func clusterRole(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

func role(ns, name string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules}
}

func crb(name, roleName string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName},
		Subjects:   subjects,
	}
}

// rb binds a Role, or a ClusterRole when kind says so.
func rb(ns, name, kind, roleName string, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: roleName},
		Subjects:   subjects,
	}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

func groupSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: name}
}

func saSubject(ns, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}
}

func rule(verbs, groups, resources []string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

func list(v ...string) []string { return v }
