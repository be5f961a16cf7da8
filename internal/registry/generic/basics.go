package generic

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// The verbs and extras the handlers look for.
var (
	_ rest.StandardStorage      = (*Store)(nil)
	_ rest.TableConvertor       = (*Store)(nil)
	_ rest.SingularNameProvider = (*Store)(nil)
	_ rest.Patcher              = (*Store)(nil)
)

// New returns an empty object of the resource's kind.
func (s *Store) New() runtime.Object { return s.NewFunc() }

// NewList returns an empty list of the resource's kind.
func (s *Store) NewList() runtime.Object { return s.NewListFunc() }

// Destroy releases the storage through DestroyFunc, if any.
func (s *Store) Destroy() {
	if s.DestroyFunc != nil {
		s.DestroyFunc()
	}
}

// NamespaceScoped reports the scope the create (or update) strategy gives.
func (s *Store) NamespaceScoped() bool {
	switch {
	case s.CreateStrategy != nil:
		return s.CreateStrategy.NamespaceScoped()
	case s.UpdateStrategy != nil:
		return s.UpdateStrategy.NamespaceScoped()
	default:
		// CompleteWithOptions refuses such a store; reaching this is a bug
		// in the code that built it.
		panic("generic.Store for " + s.DefaultQualifiedResource.String() + " has neither CreateStrategy nor UpdateStrategy")
	}
}

// GetSingularName is the singular resource name shown in discovery.
func (s *Store) GetSingularName() string {
	return s.SingularQualifiedResource.Resource
}

// ShortNames are the aliases kubectl accepts (cm, deploy, ...).
func (s *Store) ShortNames() []string { return s.ShortNamesList }

// Categories are the groups of resources kubectl get accepts (all, ...).
func (s *Store) Categories() []string { return s.CategoriesList }

// qualifiedResource names the resource in errors the way the request
// named it (a resource served under two groups is reported under the group
// asked for); code that calls the store directly gets the default.
func (s *Store) qualifiedResource(ctx context.Context) schema.GroupResource {
	if info, ok := request.RequestInfoFrom(ctx); ok && info.Resource != "" {
		return schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}
	}
	return s.DefaultQualifiedResource
}
