package definitions

import (
	"encoding/json"
	"reflect"
	"time"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

var (
	timeType        = reflect.TypeFor[time.Time]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// schema is the schema of a value of Go type t, without description or
// default: a scalar, an array, a map, or a reference to a named struct.
func (w walker) schema(t reflect.Type) spec.Schema {
	t = deref(t)
	if t == timeType {
		return simple("string", "date-time")
	}
	if s, ok := scalar(t.Kind()); ok {
		return s
	}
	switch t.Kind() {
	case reflect.Struct:
		if t.Name() == "" {
			// openapi-gen has no anonymous structs; the API types neither.
			return simple("object", "")
		}
		*w.deps = append(*w.deps, t)
		return spec.Schema{SchemaProps: spec.SchemaProps{Ref: w.v.ref(Name(t))}}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return simple("string", "byte") // []byte is base64 on the wire
		}
		item := w.element(t.Elem())
		return spec.Schema{SchemaProps: spec.SchemaProps{
			Type:  spec.StringOrArray{"array"},
			Items: &spec.SchemaOrArray{Schema: &item},
		}}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return simple("object", "") // JSON has string keys only
		}
		value := w.element(t.Elem())
		return spec.Schema{SchemaProps: spec.SchemaProps{
			Type:                 spec.StringOrArray{"object"},
			AdditionalProperties: &spec.SchemaOrBool{Allows: true, Schema: &value},
		}}
	case reflect.Interface:
		if t.Name() == "" && t.NumMethod() == 0 {
			return simple("object", "")
		}
		// A named interface (runtime.Object) says nothing of its shape.
		return spec.Schema{}
	}
	return spec.Schema{}
}

// element is the schema of a list item or map value; v3 gives it the
// zero default a non-omitempty field of that type would have, as the
// published v3 documents do ("default": "" for strings, {} for structs).
func (w walker) element(t reflect.Type) spec.Schema {
	s := w.schema(t)
	if w.v == v3 {
		s.Default = zeroDefault(t, false)
	}
	return w.finish(s)
}

// scalar maps a Go kind to its OpenAPI type and format, as openapi-gen.
func scalar(k reflect.Kind) (spec.Schema, bool) {
	switch k {
	case reflect.Bool:
		return simple("boolean", ""), true
	case reflect.Int, reflect.Int16, reflect.Int32, reflect.Uint, reflect.Uint16:
		return simple("integer", "int32"), true
	case reflect.Int8, reflect.Uint8:
		return simple("integer", "byte"), true
	case reflect.Int64, reflect.Uint32, reflect.Uint64:
		return simple("integer", "int64"), true
	case reflect.Float32:
		return simple("number", "float"), true
	case reflect.Float64:
		return simple("number", "double"), true
	case reflect.String:
		return simple("string", ""), true
	}
	return spec.Schema{}, false
}

func simple(typ, format string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{typ}, Format: format}}
}

// zeroDefault is the default openapi-gen enforces for a value of type t:
// none for pointers, slices, maps and types that unmarshal themselves
// (their zero value is null: Time, Quantity, IntOrString, RawExtension);
// {} for other structs; the zero value for scalars of non-omitempty
// fields.
func zeroDefault(t reflect.Type, omitEmpty bool) any {
	switch t.Kind() {
	case reflect.Struct:
		if reflect.PointerTo(t).Implements(unmarshalerType) {
			return nil
		}
		if t.NumField() == 1 && t.Field(0).Anonymous {
			// A struct that only embeds another is that other type.
			return zeroDefault(t.Field(0).Type, omitEmpty)
		}
		return map[string]any{}
	case reflect.String:
		if !omitEmpty {
			return ""
		}
	case reflect.Bool:
		if !omitEmpty {
			return false
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if !omitEmpty {
			return 0
		}
	}
	return nil
}
