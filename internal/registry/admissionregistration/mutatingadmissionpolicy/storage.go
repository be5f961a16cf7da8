package mutatingadmissionpolicy

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of mutating admission policies over
// optsGetter, under "mutatingadmissionpolicies" (api-extensions category).
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicy{} },
		NewListFunc:    func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicyList{} },
		Resource:       admissionregistrationv1.Resource("mutatingadmissionpolicies"),
		Singular:       admissionregistrationv1.Resource("mutatingadmissionpolicy"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		Categories:     []string{"api-extensions"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"mutatingadmissionpolicies": store}, nil
}
