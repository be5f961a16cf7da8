package customresourcedefinition

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Resource qualifies a resource of apiextensions.k8s.io.
func Resource(resource string) schema.GroupResource {
	return apiextensionsv1.SchemeGroupVersion.WithResource(resource).GroupResource()
}

// NewStorage builds the storage of customresourcedefinitions (short names
// crd and crds, category api-extensions) and of their status subresource
// over optsGetter. The types are upstream's (k8s.io/apiextensions-apiserver
// API package), so they are served in JSON, YAML and protobuf.
func NewStorage(scheme *runtime.Scheme, optsGetter generic.RESTOptionsGetter) (map[string]rest.Storage, error) {
	store, err := generic.NewStore(generic.StoreSpec{
		NewFunc:        func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} },
		NewListFunc:    func() runtime.Object { return &apiextensionsv1.CustomResourceDefinitionList{} },
		Resource:       Resource("customresourcedefinitions"),
		Singular:       Resource("customresourcedefinition"),
		Strategy:       NewStrategy(scheme),
		TableConvertor: Table(),
		ShortNames:     []string{"crd", "crds"},
		Categories:     []string{"api-extensions"},
	}, optsGetter)
	if err != nil {
		return nil, err
	}
	return map[string]rest.Storage{
		"customresourcedefinitions":        NewREST(store),
		"customresourcedefinitions/status": generic.NewStatusREST(store, NewStatusStrategy(scheme)),
	}, nil
}
