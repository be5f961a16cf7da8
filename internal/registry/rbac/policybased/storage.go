// Package policybased guards the storage of roles, cluster roles and their
// bindings against privilege escalation, as kube-apiserver does: a user may
// only write a role whose permissions it holds, and only bind a role it
// holds the permissions of or may "bind". Everything else passes through to
// the wrapped storage.
package policybased

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/authorizer/rbac"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Kind says which of the four RBAC resources a storage serves.
type Kind int

// The RBAC resources.
const (
	Role Kind = iota
	ClusterRole
	RoleBinding
	ClusterRoleBinding
)

// innerStorage is everything the generic store offers that the endpoints
// look for; the guard must offer the same, or discovery and the verbs
// served would change.
type innerStorage interface {
	rest.StandardStorage
	rest.SingularNameProvider
	rest.ShortNamesProvider
	rest.CategoriesProvider
	rest.ResetFieldsStrategy
}

// checkFunc vets a new object before it is written; old is the stored
// object on update, nil on create.
type checkFunc func(ctx context.Context, obj, old runtime.Object) error

// guard is the wrapping storage: Create and Update run check unless the
// user is trusted; every other method is the inner storage's.
type guard struct {
	innerStorage
	trusted func(ctx context.Context) bool
	check   checkFunc
}

var _ innerStorage = (*guard)(nil)

// Wrap adds upstream's escalation checks to the create and update (hence
// patch and apply) of inner, the storage of the RBAC resource kind. authz is
// the server's authorizer, asked for the "escalate" and "bind" verbs; rules
// resolves what the requesting user (from the request context) holds.
// inner must be a generic store (it implements rest.StandardStorage and the
// discovery interfaces); anything else is a wiring bug and panics.
func Wrap(kind Kind, inner rest.Storage, authz authorizer.Authorizer, rules *rbac.Authorizer) rest.Storage {
	s, ok := inner.(innerStorage)
	if !ok {
		panic(fmt.Sprintf("policybased.Wrap: %T does not implement the generic store's interfaces", inner))
	}
	p := &policy{authz: authz, rules: rules}
	g := &guard{innerStorage: s}
	switch kind {
	case Role:
		g.trusted, g.check = p.trustedForRoles, p.checkRole
	case ClusterRole:
		g.trusted, g.check = p.trustedForRoles, p.checkClusterRole
	case RoleBinding:
		g.trusted, g.check = trustedForBindings, p.checkRoleBinding
	case ClusterRoleBinding:
		g.trusted, g.check = trustedForBindings, p.checkClusterRoleBinding
	default:
		panic(fmt.Sprintf("policybased.Wrap: unknown kind %d", kind))
	}
	return g
}

// Create checks obj, then creates it.
func (g *guard) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if !g.trusted(ctx) {
		if err := g.check(ctx, obj, nil); err != nil {
			return nil, err
		}
	}
	return g.innerStorage.Create(ctx, obj, createValidation, options)
}

// Update checks the new object inside the store's update, against the
// stored one, so a patch or apply is checked on its result and retried
// conflicts are checked again.
func (g *guard) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	if !g.trusted(ctx) {
		objInfo = &checkedUpdate{UpdatedObjectInfo: objInfo, check: g.check}
	}
	return g.innerStorage.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
}

// checkedUpdate runs check on the object an update computes.
type checkedUpdate struct {
	rest.UpdatedObjectInfo
	check checkFunc
}

func (c *checkedUpdate) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	obj, err := c.UpdatedObjectInfo.UpdatedObject(ctx, oldObj)
	if err != nil {
		return nil, err
	}
	// The garbage collector must be able to drop owner references and
	// finalizers of roles it could not write itself.
	if onlyGCFieldsChange(obj, oldObj) {
		return obj, nil
	}
	if err := c.check(ctx, obj, oldObj); err != nil {
		return nil, err
	}
	return obj, nil
}
