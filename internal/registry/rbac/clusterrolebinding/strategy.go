// Package clusterrolebinding is the REST storage of
// rbac.authorization.k8s.io/v1 cluster role bindings: their strategy,
// table and generic store.
package clusterrolebinding

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/rbac/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how cluster role bindings are written: cluster-scoped, no
// status, roleRef immutable, and a PUT may create one, as upstream allows
// for role reconciliation.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the cluster role binding strategy; typer is the
// server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false: cluster role bindings are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// AllowCreateOnUpdate is true for cluster role bindings.
func (Strategy) AllowCreateOnUpdate() bool { return true }

// Validate checks a new cluster role binding.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateClusterRoleBinding(obj.(*rbacv1.ClusterRoleBinding))
}

// ValidateUpdate checks an update; roleRef may not change.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateClusterRoleBindingUpdate(obj.(*rbacv1.ClusterRoleBinding), old.(*rbacv1.ClusterRoleBinding))
}
