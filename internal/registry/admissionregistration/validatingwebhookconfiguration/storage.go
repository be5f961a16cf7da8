package validatingwebhookconfiguration

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of validating webhook configurations over optsGetter, under
// "validatingwebhookconfigurations", in the api-extensions category.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &admissionregistrationv1.ValidatingWebhookConfiguration{} },
		NewListFunc:    func() runtime.Object { return &admissionregistrationv1.ValidatingWebhookConfigurationList{} },
		Resource:       admissionregistrationv1.Resource("validatingwebhookconfigurations"),
		Singular:       admissionregistrationv1.Resource("validatingwebhookconfiguration"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		Categories:     []string{"api-extensions"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"validatingwebhookconfigurations": store}, nil
}
