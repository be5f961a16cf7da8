package v1

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RegisterDefaults adds the defaulting functions of the
// rbac.authorization.k8s.io/v1 bindings to scheme, for each kind and its
// list. Roles and cluster roles have no defaults.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&rbacv1.RoleBinding{}, func(obj any) { SetDefaultsRoleBinding(obj.(*rbacv1.RoleBinding)) })
	scheme.AddTypeDefaultingFunc(&rbacv1.RoleBindingList{}, func(obj any) {
		for i := range obj.(*rbacv1.RoleBindingList).Items {
			SetDefaultsRoleBinding(&obj.(*rbacv1.RoleBindingList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&rbacv1.ClusterRoleBinding{}, func(obj any) {
		SetDefaultsClusterRoleBinding(obj.(*rbacv1.ClusterRoleBinding))
	})
	scheme.AddTypeDefaultingFunc(&rbacv1.ClusterRoleBindingList{}, func(obj any) {
		for i := range obj.(*rbacv1.ClusterRoleBindingList).Items {
			SetDefaultsClusterRoleBinding(&obj.(*rbacv1.ClusterRoleBindingList).Items[i])
		}
	})
	return nil
}

// SetDefaultsRoleBinding defaults roleRef.apiGroup to the RBAC group and
// each subject's apiGroup by its kind.
func SetDefaultsRoleBinding(rb *rbacv1.RoleBinding) {
	if rb.RoleRef.APIGroup == "" {
		rb.RoleRef.APIGroup = rbacv1.GroupName
	}
	for i := range rb.Subjects {
		SetDefaultsSubject(&rb.Subjects[i])
	}
}

// SetDefaultsClusterRoleBinding is SetDefaultsRoleBinding for cluster
// role bindings.
func SetDefaultsClusterRoleBinding(crb *rbacv1.ClusterRoleBinding) {
	if crb.RoleRef.APIGroup == "" {
		crb.RoleRef.APIGroup = rbacv1.GroupName
	}
	for i := range crb.Subjects {
		SetDefaultsSubject(&crb.Subjects[i])
	}
}

// SetDefaultsSubject gives users and groups the RBAC API group; service
// accounts belong to the core group, whose name is empty.
func SetDefaultsSubject(s *rbacv1.Subject) {
	if s.APIGroup != "" {
		return
	}
	switch s.Kind {
	case rbacv1.UserKind, rbacv1.GroupKind:
		s.APIGroup = rbacv1.GroupName
	}
}
