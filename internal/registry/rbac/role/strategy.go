// Package role is the REST storage of rbac.authorization.k8s.io/v1 roles:
// their strategy and their generic store.
package role

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/rbac/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how roles are written. Roles are namespaced and have no
// status; a PUT may create one, as upstream allows so that role
// reconciliation can apply a whole set.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the role strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// AllowCreateOnUpdate is true for roles.
func (Strategy) AllowCreateOnUpdate() bool { return true }

// Validate checks a new role.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateRole(obj.(*rbacv1.Role))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateRoleUpdate(obj.(*rbacv1.Role), old.(*rbacv1.Role))
}
