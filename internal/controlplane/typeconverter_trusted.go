package controlplane

import (
	"fmt"
	"reflect"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// trustedTypes is a server-side apply type converter that does not check
// a Go-typed object against its schema when the caller tolerates
// duplicate list keys, which the field manager does for the live and new
// objects of every write. apimachinery's converter walks every such
// object to validate it, a few percent of a write's CPU; a Go-typed object
// matches the schema generated from its own type by construction, so the
// walk can only pass. Unstructured objects (custom resources, apply
// configurations) and calls that validate fully go to the wrapped
// converter.
type trustedTypes struct {
	managedfields.TypeConverter
	// shapes are the typed values of an empty object per kind, made by
	// the wrapped converter: their schema and type are reused.
	shapes sync.Map // GroupVersionKind -> *typed.TypedValue
}

func newTrustedTypes(tc managedfields.TypeConverter) *trustedTypes {
	return &trustedTypes{TypeConverter: tc}
}

func (c *trustedTypes) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	if _, ok := obj.(runtime.Unstructured); ok || !slices.Contains(opts, typed.AllowDuplicates) {
		return c.TypeConverter.ObjectToTyped(obj, opts...)
	}
	shape, err := c.shapeOf(obj)
	if err != nil {
		return nil, err
	}
	v, err := value.NewValueReflect(obj)
	if err != nil {
		return nil, fmt.Errorf("error creating struct value reflector: %v", err)
	}
	return typed.AsTypedUnvalidated(v, shape.Schema(), shape.TypeRef()), nil
}

// shapeOf returns the typed value of an empty object of obj's kind; its
// error is the one the wrapped converter gives for the kind.
func (c *trustedTypes) shapeOf(obj runtime.Object) (*typed.TypedValue, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if v, ok := c.shapes.Load(gvk); ok {
		return v.(*typed.TypedValue), nil
	}
	empty, ok := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(runtime.Object)
	if !ok {
		return c.TypeConverter.ObjectToTyped(obj, typed.AllowDuplicates)
	}
	empty.GetObjectKind().SetGroupVersionKind(gvk)
	tv, err := c.TypeConverter.ObjectToTyped(empty, typed.AllowDuplicates)
	if err != nil {
		return nil, err
	}
	c.shapes.Store(gvk, tv)
	return tv, nil
}

var _ managedfields.TypeConverter = (*trustedTypes)(nil)
