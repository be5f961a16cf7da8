package resourcequota

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of quotas: "resourcequotas" and
// "resourcequotas/status".
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	strategy := NewStrategy(scheme)
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.ResourceQuota{} },
		NewListFunc:    func() runtime.Object { return &corev1.ResourceQuotaList{} },
		Resource:       corev1.Resource("resourcequotas"),
		Singular:       corev1.Resource("resourcequota"),
		Strategy:       strategy,
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
		ShortNames:     []string{"quota"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"resourcequotas":        store,
		"resourcequotas/status": generic.NewStatusREST(store, StatusStrategy{strategy}),
	}, nil
}
