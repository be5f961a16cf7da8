package serviceaccount

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/printers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// REST is the storage of service accounts.
type REST struct {
	*generic.Store
}

var (
	_ rest.StandardStorage      = (*REST)(nil)
	_ rest.ShortNamesProvider   = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
)

// NewREST builds the service account storage over optsGetter.
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.ServiceAccount{} },
		NewListFunc:    func() runtime.Object { return &corev1.ServiceAccountList{} },
		Resource:       corev1.Resource("serviceaccounts"),
		Singular:       corev1.Resource("serviceaccount"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: printers.ServiceAccountTable(),
		AttrFunc:       GetAttrs,
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}

// ShortNames are the aliases kubectl accepts.
func (*REST) ShortNames() []string { return []string{"sa"} }
