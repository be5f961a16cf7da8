package storageversionmigration

import (
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage returns the storage of storageversionmigrations and
// storageversionmigrations/status.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &storagemigrationv1.StorageVersionMigration{} },
		NewListFunc:    func() runtime.Object { return &storagemigrationv1.StorageVersionMigrationList{} },
		Resource:       storagemigrationv1.Resource("storageversionmigrations"),
		Singular:       storagemigrationv1.Resource("storageversionmigration"),
		Strategy:       strategy,
		TableConvertor: Table(),
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"storageversionmigrations":        store,
		"storageversionmigrations/status": generic.NewStatusREST(store, StatusStrategy{strategy}),
	}, nil
}
