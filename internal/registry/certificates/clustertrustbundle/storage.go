package clustertrustbundle

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of clustertrustbundles.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &certificatesv1.ClusterTrustBundle{} },
		NewListFunc:    func() runtime.Object { return &certificatesv1.ClusterTrustBundleList{} },
		Resource:       certificatesv1.Resource("clustertrustbundles"),
		Singular:       certificatesv1.Resource("clustertrustbundle"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"clustertrustbundles": store}, nil
}
