package validatingadmissionpolicy

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of validating admission policies over
// optsGetter: "validatingadmissionpolicies" (api-extensions category) and
// "validatingadmissionpolicies/status".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicy{} },
		NewListFunc:    func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicyList{} },
		Resource:       admissionregistrationv1.Resource("validatingadmissionpolicies"),
		Singular:       admissionregistrationv1.Resource("validatingadmissionpolicy"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		Categories:     []string{"api-extensions"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"validatingadmissionpolicies":        store,
		"validatingadmissionpolicies/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
	}, nil
}
