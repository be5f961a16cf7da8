package secret

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/printers"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// REST is the storage of secrets. Secrets have no short name.
type REST struct {
	*generic.Store
}

var (
	_ rest.StandardStorage      = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
)

// NewREST builds the secret storage over optsGetter.
func NewREST(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.Secret{} },
		NewListFunc:    func() runtime.Object { return &corev1.SecretList{} },
		Resource:       corev1.Resource("secrets"),
		Singular:       corev1.Resource("secret"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: printers.SecretTable(),
		AttrFunc:       GetAttrs,
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}
