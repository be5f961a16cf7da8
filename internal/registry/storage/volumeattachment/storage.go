package volumeattachment

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of volumeattachments and
// volumeattachments/status.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &storagev1.VolumeAttachment{} },
		NewListFunc:    func() runtime.Object { return &storagev1.VolumeAttachmentList{} },
		Resource:       storagev1.Resource("volumeattachments"),
		Singular:       storagev1.Resource("volumeattachment"),
		Strategy:       strategy,
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"volumeattachments":        store,
		"volumeattachments/status": generic.NewStatusREST(store, StatusStrategy{strategy}),
	}, nil
}
