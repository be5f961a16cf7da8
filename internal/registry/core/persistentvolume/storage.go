package persistentvolume

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of persistent volumes:
// "persistentvolumes" and "persistentvolumes/status".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	return newStorage(scheme, optsGetter, time.Now)
}

// newStorage is NewStorage with the clock of phase transitions.
func newStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter, now func() time.Time) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme, now)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.PersistentVolume{} },
		NewListFunc:    func() runtime.Object { return &corev1.PersistentVolumeList{} },
		Resource:       corev1.Resource("persistentvolumes"),
		Singular:       corev1.Resource("persistentvolume"),
		Strategy:       strategy,
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
		ShortNames:     []string{"pv"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"persistentvolumes":        store,
		"persistentvolumes/status": generic.NewStatusREST(store, StatusStrategy{strategy}),
	}, nil
}
