package certificatesigningrequest

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of certificatesigningrequests (short name
// csr) and of its status and approval subresources.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &certificatesv1.CertificateSigningRequest{} },
		NewListFunc:    func() runtime.Object { return &certificatesv1.CertificateSigningRequestList{} },
		Resource:       certificatesv1.Resource("certificatesigningrequests"),
		Singular:       certificatesv1.Resource("certificatesigningrequest"),
		Strategy:       strategy,
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
		ShortNames:     []string{"csr"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"certificatesigningrequests":          store,
		"certificatesigningrequests/status":   generic.NewStatusREST(store, StatusStrategy{strategy}),
		"certificatesigningrequests/approval": generic.NewStatusREST(store, ApprovalStrategy{strategy}),
	}, nil
}
