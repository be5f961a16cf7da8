package priorityclass

import (
	"context"
	"errors"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapischedulingv1 "github.com/kapi-dev/kapi/internal/apis/scheduling/v1"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// REST is the storage of priority classes: the generic store, except that
// the system classes cannot be deleted.
type REST struct {
	*generic.Store
}

var (
	_ rest.StandardStorage      = (*REST)(nil)
	_ rest.ShortNamesProvider   = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
)

// NewStorage builds the storage of priority classes over optsGetter,
// under "priorityclasses" (short name pc).
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &schedulingv1.PriorityClass{} },
		NewListFunc:    func() runtime.Object { return &schedulingv1.PriorityClassList{} },
		Resource:       schedulingv1.Resource("priorityclasses"),
		Singular:       schedulingv1.Resource("priorityclass"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"pc"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"priorityclasses": &REST{Store: store}}, nil
}

// Delete refuses the system priority classes with 403, as upstream.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	for _, spc := range kapischedulingv1.SystemPriorityClasses() {
		if name == spc.Name {
			return nil, false, apierrors.NewForbidden(schedulingv1.Resource("priorityclasses"), spc.Name, errors.New("this is a system priority class and cannot be deleted"))
		}
	}
	return r.Store.Delete(ctx, name, deleteValidation, options)
}
