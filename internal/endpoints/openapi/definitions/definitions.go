// Package definitions builds the OpenAPI schema definitions of Go API
// types by reflection: properties from json tags, docs from the types'
// SwaggerDoc(), patch strategies and merge keys from struct tags, list
// and map types from the markers table, and the Kubernetes extensions
// (x-kubernetes-group-version-kind, int-or-string, ...). The same
// definitions feed the OpenAPI documents and the server-side apply type
// converter, so both describe a type the same way.
package definitions

import (
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Name is the definition name of a Go type: its package path with the
// domain reversed, then the type name (k8s.io/api/apps/v1.Deployment is
// io.k8s.api.apps.v1.Deployment), as upstream names them.
func Name(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pkg := t.PkgPath()
	domain, rest, _ := strings.Cut(pkg, "/")
	parts := strings.Split(domain, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	name := strings.Join(parts, ".")
	if rest != "" {
		name += "." + strings.ReplaceAll(rest, "/", ".")
	}
	return name + "." + t.Name()
}

// Builder builds definitions for the types of one scheme; it caches what
// it built, so each type is reflected on once.
type Builder struct {
	scheme *runtime.Scheme

	converterOnce sync.Once
	converter     managedfields.TypeConverter
	converterErr  error
}

// NewBuilder returns a builder for the types registered in scheme.
func NewBuilder(scheme *runtime.Scheme) *Builder {
	return &Builder{scheme: scheme}
}

// V2 returns the OpenAPI v2 definitions of every type reachable from
// roots, keyed by Name, with references "#/definitions/<name>".
// STUB: every root is a bare object until the builder lands.
func (b *Builder) V2(roots ...reflect.Type) map[string]spec.Schema {
	out := map[string]spec.Schema{}
	for _, t := range roots {
		out[Name(t)] = *spec.MapProperty(nil)
	}
	return out
}

// V3 returns the OpenAPI v3 schemas of every type reachable from roots,
// keyed by Name, with references "#/components/schemas/<name>".
// STUB: every root is a bare object until the builder lands.
func (b *Builder) V3(roots ...reflect.Type) map[string]*spec.Schema {
	out := map[string]*spec.Schema{}
	for _, t := range roots {
		out[Name(t)] = spec.MapProperty(nil)
	}
	return out
}

// TypeConverter returns the server-side apply type converter of every
// kind in the scheme. It is built once, on the first call.
// STUB: a deduced converter until the builder lands.
func (b *Builder) TypeConverter() (managedfields.TypeConverter, error) {
	b.converterOnce.Do(func() {
		b.converter = managedfields.NewDeducedTypeConverter()
	})
	return b.converter, b.converterErr
}
