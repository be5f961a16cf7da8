// Package rolebinding is the REST storage of rbac.authorization.k8s.io/v1
// role bindings: their strategy, table and generic store.
package rolebinding

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/rbac/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how role bindings are written: namespaced, no status,
// roleRef immutable, and a PUT may create one, as upstream allows for role
// reconciliation.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the role binding strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// AllowCreateOnUpdate is true for role bindings.
func (Strategy) AllowCreateOnUpdate() bool { return true }

// Validate checks a new role binding.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateRoleBinding(obj.(*rbacv1.RoleBinding))
}

// ValidateUpdate checks an update; roleRef may not change.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateRoleBindingUpdate(obj.(*rbacv1.RoleBinding), old.(*rbacv1.RoleBinding))
}
