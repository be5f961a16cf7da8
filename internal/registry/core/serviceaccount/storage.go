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
	strategy := NewStrategy(scheme)
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.ServiceAccount{} },
		NewListFunc:               func() runtime.Object { return &corev1.ServiceAccountList{} },
		DefaultQualifiedResource:  corev1.Resource("serviceaccounts"),
		SingularQualifiedResource: corev1.Resource("serviceaccount"),
		CreateStrategy:            strategy,
		UpdateStrategy:            strategy,
		DeleteStrategy:            strategy,
		TableConvertor:            printers.ServiceAccountTable(),
	}
	if err := store.CompleteWithOptions(&generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: GetAttrs}); err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}

// ShortNames are the aliases kubectl accepts.
func (*REST) ShortNames() []string { return []string{"sa"} }
