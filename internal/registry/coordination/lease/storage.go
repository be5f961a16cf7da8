package lease

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/printers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// REST is the storage of leases. Leases have no short name.
type REST struct {
	*generic.Store
}

var (
	_ rest.StandardStorage      = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
)

// NewREST builds the lease storage over optsGetter.
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &coordinationv1.Lease{} },
		NewListFunc:    func() runtime.Object { return &coordinationv1.LeaseList{} },
		Resource:       coordinationv1.Resource("leases"),
		Singular:       coordinationv1.Resource("lease"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: printers.LeaseTable(),
		AttrFunc:       GetAttrs,
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}
