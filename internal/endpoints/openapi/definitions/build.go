package definitions

import (
	"encoding/json"
	"reflect"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/markers"
)

// version is the OpenAPI version a definition is built for: they differ
// in where references point, in how a reference carries siblings, and
// in defaults (v2 documents have none, as kube-apiserver prunes them).
type version int

const (
	v2 version = iota
	v3
)

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func (v version) ref(name string) spec.Ref {
	prefix := "#/definitions/"
	if v == v3 {
		prefix = "#/components/schemas/"
	}
	return spec.MustCreateRef(prefix + pointerEscaper.Replace(name))
}

// The extensions the builder emits.
const (
	extGVK           = "x-kubernetes-group-version-kind"
	extPatchStrategy = "x-kubernetes-patch-strategy"
	extPatchMergeKey = "x-kubernetes-patch-merge-key"
	extListType      = "x-kubernetes-list-type"
	extListMapKeys   = "x-kubernetes-list-map-keys"
	extMapType       = "x-kubernetes-map-type"
)

// definition is one built schema and the named types it references.
type definition struct {
	schema *spec.Schema
	deps   []reflect.Type
}

// schemaTyper and v3OneOfTyper are how a type describes its own schema
// (metav1.Time, resource.Quantity, intstr.IntOrString, ...).
type schemaTyper interface {
	OpenAPISchemaType() []string
	OpenAPISchemaFormat() string
}

type v3OneOfTyper interface{ OpenAPIV3OneOfTypes() []string }

// define builds the definition of the named struct t.
func (b *Builder) define(v version, t reflect.Type) *definition {
	name := Name(t)
	d := &definition{schema: &spec.Schema{}}
	s := d.schema
	s.Description = docsOf(t, name)[""]
	if !selfDescribed(v, t, s) {
		s.Type = spec.StringOrArray{"object"}
		w := walker{b: b, v: v, deps: &d.deps}
		w.members(t, s)
		if m, ok := b.markers(name); ok {
			// openapi-gen writes +structType (and +mapType) of a struct
			// as x-kubernetes-map-type.
			setExt(s, extMapType, firstNonEmpty(m.StructType, m.MapType))
		}
	}
	if gvks := b.groupVersionKinds(name); gvks != nil {
		setExt(s, extGVK, gvks)
	}
	return d
}

// selfDescribed fills s from the type's own OpenAPISchemaType and
// OpenAPISchemaFormat; in v3, OpenAPIV3OneOfTypes wins as a oneOf (with
// the format kept, as upstream publishes IntOrString).
func selfDescribed(v version, t reflect.Type, s *spec.Schema) bool {
	val := reflect.Zero(t).Interface()
	typer, ok := val.(schemaTyper)
	if !ok {
		return false
	}
	s.Format = typer.OpenAPISchemaFormat()
	if oneOf, ok := val.(v3OneOfTyper); ok && v == v3 {
		for _, typ := range oneOf.OpenAPIV3OneOfTypes() {
			s.OneOf = append(s.OneOf, spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{typ}}})
		}
		return true
	}
	s.Type = typer.OpenAPISchemaType()
	return true
}

// walker builds the properties of one definition.
type walker struct {
	b    *Builder
	v    version
	deps *[]reflect.Type
}

// members adds the fields of struct t to s, inlining embedded structs
// the way encoding/json does (TypeMeta's apiVersion and kind).
func (w walker) members(t reflect.Type, s *spec.Schema) {
	typeName := Name(t)
	fieldDocs := docsOf(t, typeName)
	m, _ := w.b.markers(typeName)
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			if ft := deref(f.Type); ft.Kind() == reflect.Struct {
				w.members(ft, s)
				continue
			}
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fm := m.Fields[name]
		omitEmpty := hasOption(opts, "omitempty")
		if fm.Required || !fm.Optional && !omitEmpty {
			s.Required = append(s.Required, name)
		}
		if s.Properties == nil {
			s.Properties = map[string]spec.Schema{}
		}
		s.Properties[name] = w.property(f, fm, fieldDocs[name], hasOption(opts, "string"), omitEmpty)
	}
}

// property is the schema of one field.
func (w walker) property(f reflect.StructField, fm markers.Field, doc string, asString, omitEmpty bool) spec.Schema {
	var p spec.Schema
	if asString {
		// ",string" fields are strings on the wire whatever their Go type.
		p.Type = spec.StringOrArray{"string"}
	} else {
		p = w.schema(f.Type)
		if w.v == v3 {
			p.Default = fieldDefault(f.Type, fm, omitEmpty)
		}
	}
	p.Description = doc
	setExt(&p, extPatchStrategy, f.Tag.Get("patchStrategy"))
	setExt(&p, extPatchMergeKey, f.Tag.Get("patchMergeKey"))
	setExt(&p, extListType, fm.ListType)
	if len(fm.ListMapKeys) > 0 {
		keys := make([]any, len(fm.ListMapKeys))
		for i, k := range fm.ListMapKeys {
			keys[i] = k
		}
		setExt(&p, extListMapKeys, keys)
	}
	setExt(&p, extMapType, firstNonEmpty(fm.MapType, fm.StructType))
	return w.finish(p)
}

// fieldDefault is the v3 default of a field: its +default marker, or
// the zero value openapi-gen enforces for non-pointer fields.
func fieldDefault(t reflect.Type, fm markers.Field, omitEmpty bool) any {
	if fm.Default != "" {
		var v any
		if err := json.Unmarshal([]byte(fm.Default), &v); err == nil {
			return v
		}
	}
	return zeroDefault(t, omitEmpty)
}

// finish makes a v3 reference that carries siblings (a description, a
// default, extensions) an allOf of the bare reference, as upstream's
// v3 documents do: a v3 $ref cannot have siblings.
func (w walker) finish(s spec.Schema) spec.Schema {
	if w.v != v3 || s.Ref.String() == "" || s.Description == "" && s.Default == nil && len(s.Extensions) == 0 {
		return s
	}
	ref := spec.Schema{SchemaProps: spec.SchemaProps{Ref: s.Ref}}
	s.Ref = spec.Ref{}
	s.AllOf = []spec.Schema{ref}
	return s
}

func setExt(s *spec.Schema, key string, value any) {
	if v, ok := value.(string); ok && v == "" {
		return
	}
	if s.Extensions == nil {
		s.Extensions = spec.Extensions{}
	}
	s.Extensions[key] = value
}

func hasOption(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
