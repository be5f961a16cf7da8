package podtemplate

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// NewStorage builds the storage of pod templates, under "podtemplates".
// They have no short name, no category and no subresources.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &corev1.PodTemplate{} },
		NewListFunc:    func() runtime.Object { return &corev1.PodTemplateList{} },
		Resource:       corev1.Resource("podtemplates"),
		Singular:       corev1.Resource("podtemplate"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		AttrFunc:       GetAttrs,
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{"podtemplates": store}, nil
}
