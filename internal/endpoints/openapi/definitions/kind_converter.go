package definitions

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
)

// KindTypeConverter returns a type converter for gvk alone, over the
// definitions its Go type reaches: what TypeConverter would do for that
// kind, for a fraction of the cost. A server's first writes (its bootstrap
// objects, a handful of kinds) need no more, while the converter of every
// kind takes tens of milliseconds of CPU to build.
func (b *Builder) KindTypeConverter(gvk schema.GroupVersionKind) (managedfields.TypeConverter, error) {
	if gvk.Version == runtime.APIVersionInternal {
		return nil, fmt.Errorf("no type converter for the internal version of %s", gvk.GroupKind())
	}
	obj, err := b.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	t := reflect.TypeOf(obj)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !definable(t) {
		return nil, fmt.Errorf("%s has no definition of its own", gvk)
	}
	return managedfields.NewTypeConverter(b.V3(t), false)
}

// BuiltTypeConverter returns the converter of every kind if this process
// has built it for a scheme like b's, and nil otherwise; it never builds.
func (b *Builder) BuiltTypeConverter() managedfields.TypeConverter {
	if b.customMarkers {
		return nil
	}
	v, ok := sharedConverters.Load(b.kindsFingerprint())
	if !ok {
		return nil
	}
	sc := v.(*sharedConverter)
	if !sc.built.Load() {
		return nil
	}
	return sc.tc
}
