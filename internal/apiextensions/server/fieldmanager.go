package server

import (
	"maps"
	"reflect"
	"sync"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
)

// fieldManagers builds, once per CRD build, the type converters server-side
// apply needs: the CRD's from its versions' schemas, and the shared one of
// autoscaling/v1 Scale.
type fieldManagers struct {
	// objectMeta is ObjectMeta's definitions, which every CRD's converter
	// starts from. Building them took ~4 ms of CPU on a server's path to
	// serving, before any CRD may exist: newFieldManagers starts the
	// build in the background and the first converter waits for it.
	objectMeta func() map[string]*spec.Schema

	scaleOnce sync.Once
	scaleTC   managedfields.TypeConverter
	scaleErr  error
	scheme    *runtime.Scheme
}

func newFieldManagers() (*fieldManagers, error) {
	scheme := runtime.NewScheme()
	if err := autoscalingv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	objectMeta := sync.OnceValue(func() map[string]*spec.Schema {
		return definitions.NewBuilder(scheme).V3(reflect.TypeFor[metav1.ObjectMeta]())
	})
	go objectMeta()
	return &fieldManagers{objectMeta: objectMeta, scheme: scheme}, nil
}

// scaleTypeConverter knows autoscaling/v1 Scale; built on first use.
func (f *fieldManagers) scaleTypeConverter() (managedfields.TypeConverter, error) {
	f.scaleOnce.Do(func() {
		f.scaleTC, f.scaleErr = definitions.NewBuilder(f.scheme).TypeConverter()
	})
	return f.scaleTC, f.scaleErr
}

// typeConverter is the CRD's type converter: every version's published
// schema, tagged with its kind, over ObjectMeta's definitions. A schema
// the converter cannot take (none, or preserving unknown fields where
// structure is needed) falls back to a deduced converter, as upstream
// does when it has no models.
func (f *fieldManagers) typeConverter(group, kind string, schemas map[string]VersionSchema) managedfields.TypeConverter {
	models := maps.Clone(f.objectMeta())
	for version, vs := range schemas {
		s, err := vs.OpenAPI()
		if err != nil {
			return managedfields.NewDeducedTypeConverter()
		}
		tagged := *s
		tagged.Extensions = maps.Clone(s.Extensions)
		tagged.AddExtension("x-kubernetes-group-version-kind", []any{map[string]any{"group": group, "version": version, "kind": kind}})
		models[DefinitionName(schema.GroupVersion{Group: group, Version: version}, kind)] = &tagged
	}
	tc, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		return managedfields.NewDeducedTypeConverter()
	}
	return tc
}

// crdFieldManager is the field manager of one version's endpoint: objects
// are handled in that version (the hub, as upstream's per-version
// handlers), entries record subresource, and reset fields are excluded.
func crdFieldManager(tc managedfields.TypeConverter, conv *crdConverter, schemas map[string]VersionSchema, gvk schema.GroupVersionKind, subresource string, reset map[string]struct{}) (*managedfields.FieldManager, error) {
	filter, err := resetFilter(conv, reset)
	if err != nil {
		return nil, err
	}
	return managedfields.NewDefaultCRDFieldManager(tc, conv, crdDefaulter{conv: conv, schemas: schemas}, unstructuredCreater{},
		gvk, gvk.GroupVersion(), subresource, filter)
}

// scaleFieldManager tracks writes of the Scale subresource.
func (f *fieldManagers) scaleFieldManager() (*managedfields.FieldManager, error) {
	tc, err := f.scaleTypeConverter()
	if err != nil {
		return nil, err
	}
	kind := autoscalingv1.SchemeGroupVersion.WithKind("Scale")
	return handlers.NewFieldManager(tc, f.scheme, kind, kind.GroupVersion(), "scale", nil)
}

// resetFilter excludes the reset fields in every version of the CRD.
func resetFilter(conv *crdConverter, names map[string]struct{}) (map[fieldpath.APIVersion]fieldpath.Filter, error) {
	versions := make([]schema.GroupVersion, len(conv.versions))
	for i, v := range conv.versions {
		versions[i] = schema.GroupVersion{Group: conv.group, Version: v}
	}
	return handlers.ResetFieldsFilter(versions, names)
}

// crdDefaulter defaults custom resources with their version's schema and
// leaves other objects alone.
type crdDefaulter struct {
	conv    *crdConverter
	schemas map[string]VersionSchema
}

func (d crdDefaulter) Default(obj runtime.Object) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || !d.conv.isCustomResource(u) {
		return
	}
	if vs, ok := d.schemas[u.GroupVersionKind().Version]; ok {
		vs.Default(u.Object)
	}
}

// unstructuredCreater creates custom resources, which no scheme knows.
type unstructuredCreater struct{}

func (unstructuredCreater) New(kind schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kind)
	return u, nil
}
