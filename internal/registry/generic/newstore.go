package generic

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// ResourceStrategy is a strategy for all three writes: create, update and
// delete.
type ResourceStrategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
	rest.RESTDeleteStrategy
}

// StoreSpec describes a resource whose store has one strategy for every
// write: what NewStore needs to build and complete it.
type StoreSpec struct {
	// NewFunc and NewListFunc return an empty object and an empty list of
	// the kind.
	NewFunc, NewListFunc func() runtime.Object
	// Resource and Singular are the plural and singular qualified
	// resource, e.g. corev1.Resource("configmaps") and
	// corev1.Resource("configmap").
	Resource, Singular schema.GroupResource
	// Strategy is the create, update and delete strategy.
	Strategy ResourceStrategy
	// TableConvertor renders Tables; nil means the default NAME and
	// CREATED AT.
	TableConvertor rest.TableConvertor
	// AttrFunc returns labels and selectable fields; nil means the
	// default attributes of the strategy's scope.
	AttrFunc storage.AttrFunc
	// ShortNames and Categories are announced in discovery (kubectl get
	// cm, kubectl get all).
	ShortNames, Categories []string
}

// NewStore builds the store spec describes and completes it with the
// storage optsGetter gives. The caller may still set what the spec does not
// cover, such as ReturnDeletedObject, before serving.
func NewStore(spec StoreSpec, optsGetter RESTOptionsGetter) (*Store, error) {
	if spec.Strategy == nil {
		return nil, fmt.Errorf("store spec for %s must have Strategy set", spec.Resource)
	}
	s := &Store{
		NewFunc:                   spec.NewFunc,
		NewListFunc:               spec.NewListFunc,
		DefaultQualifiedResource:  spec.Resource,
		SingularQualifiedResource: spec.Singular,
		CreateStrategy:            spec.Strategy,
		UpdateStrategy:            spec.Strategy,
		DeleteStrategy:            spec.Strategy,
		TableConvertor:            spec.TableConvertor,
		ShortNamesList:            spec.ShortNames,
		CategoriesList:            spec.Categories,
	}
	if err := s.CompleteWithOptions(&StoreOptions{RESTOptions: optsGetter, AttrFunc: spec.AttrFunc}); err != nil {
		return nil, err
	}
	return s, nil
}
