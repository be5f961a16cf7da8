package persistentvolumeclaim

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of claims: "persistentvolumeclaims" and
// "persistentvolumeclaims/status".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
		NewListFunc:    func() runtime.Object { return &corev1.PersistentVolumeClaimList{} },
		Resource:       corev1.Resource("persistentvolumeclaims"),
		Singular:       corev1.Resource("persistentvolumeclaim"),
		Strategy:       strategy,
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
		ShortNames:     []string{"pvc"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"persistentvolumeclaims":        store,
		"persistentvolumeclaims/status": generic.NewStatusREST(store, StatusStrategy{strategy}),
	}, nil
}
