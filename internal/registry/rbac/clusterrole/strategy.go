// Package clusterrole is the REST storage of rbac.authorization.k8s.io/v1
// cluster roles: their strategy and their generic store.
package clusterrole

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/rbac/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how cluster roles are written: cluster-scoped, no status,
// and a PUT may create one, as upstream allows for role reconciliation.
type Strategy struct {
	rest.DefaultStrategy
}

var (
	_ rest.RESTCreateStrategy = Strategy{}
	_ rest.RESTUpdateStrategy = Strategy{}
	_ rest.RESTDeleteStrategy = Strategy{}
)

// NewStrategy returns the cluster role strategy; typer is the server's
// scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// NamespaceScoped is false: cluster roles are cluster-scoped.
func (Strategy) NamespaceScoped() bool { return false }

// AllowCreateOnUpdate is true for cluster roles.
func (Strategy) AllowCreateOnUpdate() bool { return true }

// Validate checks a new cluster role.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateClusterRole(obj.(*rbacv1.ClusterRole))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateClusterRoleUpdate(obj.(*rbacv1.ClusterRole), old.(*rbacv1.ClusterRole))
}
