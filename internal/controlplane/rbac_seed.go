package controlplane

import (
	"maps"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac/bootstrappolicy"
)

// rbacSeed is the RBAC bootstrap policy rbac/bootstrap-roles would
// create (see seed.go).
var rbacSeed = seedSet{
	resources: []schema.GroupResource{
		{Group: rbacv1.GroupName, Resource: "clusterroles"},
		{Group: rbacv1.GroupName, Resource: "clusterrolebindings"},
		{Group: rbacv1.GroupName, Resource: "roles"},
		{Group: rbacv1.GroupName, Resource: "rolebindings"},
	},
	objects: bootstrapObjects,
}

// bootstrapObjects is the policy in the order the hook reconciles it.
func bootstrapObjects() []runtime.Object {
	var out []runtime.Object
	for _, r := range bootstrappolicy.ClusterRoles() {
		out = append(out, &r)
	}
	for _, b := range bootstrappolicy.ClusterRoleBindings() {
		out = append(out, &b)
	}
	roles := bootstrappolicy.NamespaceRoles()
	for _, ns := range slices.Sorted(maps.Keys(roles)) {
		for _, r := range roles[ns] {
			out = append(out, &r)
		}
	}
	bindings := bootstrappolicy.NamespaceRoleBindings()
	for _, ns := range slices.Sorted(maps.Keys(bindings)) {
		for _, b := range bindings[ns] {
			out = append(out, &b)
		}
	}
	return out
}
