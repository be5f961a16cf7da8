package podcertificaterequest

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of podcertificaterequests and
// podcertificaterequests/status. kube-apiserver has no columns of its own
// for them: tables print NAME and CREATED AT.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:     func() runtime.Object { return &certificatesv1.PodCertificateRequest{} },
		NewListFunc: func() runtime.Object { return &certificatesv1.PodCertificateRequestList{} },
		Resource:    certificatesv1.Resource("podcertificaterequests"),
		Singular:    certificatesv1.Resource("podcertificaterequest"),
		Strategy:    strategy,
		AttrFunc:    GetAttrs,
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"podcertificaterequests":        store,
		"podcertificaterequests/status": generic.NewStatusREST(store, StatusStrategy{Strategy: strategy}),
	}, nil
}
