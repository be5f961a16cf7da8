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
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/markers"
)

// modelNamer is implemented by the k8s.io/api and apimachinery types
// (zz_generated.model_name.go): the name upstream publishes them under.
type modelNamer interface{ OpenAPIModelName() string }

var modelNamerType = reflect.TypeFor[modelNamer]()

// Name is the definition name of a Go type: its package path with the
// domain reversed, then the type name (k8s.io/api/apps/v1.Deployment is
// io.k8s.api.apps.v1.Deployment), as upstream names them. A type that
// names itself (OpenAPIModelName) is called what it says.
func Name(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(modelNamerType) {
		if n := reflect.Zero(t).Interface().(modelNamer).OpenAPIModelName(); n != "" {
			return n
		}
	}
	pkg := t.PkgPath()
	domain, rest, _ := strings.Cut(pkg, "/")
	name := domain
	if strings.Contains(domain, ".") {
		parts := strings.Split(domain, ".")
		for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
			parts[i], parts[j] = parts[j], parts[i]
		}
		name = strings.Join(parts, ".")
	}
	if rest != "" {
		name += "." + strings.ReplaceAll(rest, "/", ".")
	}
	return name + "." + t.Name()
}

// Builder builds definitions for the types of one scheme; it caches what
// it built, so each type is reflected on once per OpenAPI version. It is
// safe for concurrent use.
type Builder struct {
	scheme *runtime.Scheme
	// markers looks up the comment markers of a definition; tests swap it.
	markers func(definitionName string) (markers.Type, bool)
	// customMarkers is set when a test swapped markers: the builder's
	// converter is then its own, never shared.
	customMarkers bool

	kindsOnce sync.Once
	kinds     map[string][]any // definition name → x-kubernetes-group-version-kind

	mu    sync.Mutex
	built [2]map[reflect.Type]*definition // by version: v2, v3

	converterOnce sync.Once
	converter     managedfields.TypeConverter
	converterErr  error
}

// NewBuilder returns a builder for the types registered in scheme.
func NewBuilder(scheme *runtime.Scheme) *Builder {
	return &Builder{
		scheme:  scheme,
		markers: markers.Lookup,
		built:   [2]map[reflect.Type]*definition{{}, {}},
	}
}

// V2 returns the OpenAPI v2 definitions of every type reachable from
// roots, keyed by Name, with references "#/definitions/<name>". The
// schemas are shared with the builder's cache: callers must not modify
// them.
func (b *Builder) V2(roots ...reflect.Type) map[string]spec.Schema {
	out := map[string]spec.Schema{}
	for name, d := range b.closure(v2, roots) {
		out[name] = *d.schema
	}
	return out
}

// V3 returns the OpenAPI v3 schemas of every type reachable from roots,
// keyed by Name, with references "#/components/schemas/<name>". The
// schemas are shared with the builder's cache: callers must not modify
// them.
func (b *Builder) V3(roots ...reflect.Type) map[string]*spec.Schema {
	out := map[string]*spec.Schema{}
	for name, d := range b.closure(v3, roots) {
		out[name] = d.schema
	}
	return out
}

// Kinds returns the Go type of every kind registered in the scheme
// (internal versions and unstructured kinds left out), sorted by
// definition name: the roots of the type converter.
func (b *Builder) Kinds() []reflect.Type {
	seen := map[reflect.Type]bool{}
	var out []reflect.Type
	for gvk, t := range b.scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || !definable(t) || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return Name(out[i]) < Name(out[j]) })
	return out
}

// TypeConverter returns the server-side apply type converter of every
// kind in the scheme, from the v3 definitions (as kube-apiserver builds
// its own). It is built once, on the first call.
func (b *Builder) TypeConverter() (managedfields.TypeConverter, error) {
	b.converterOnce.Do(func() {
		build := func() (managedfields.TypeConverter, error) {
			return managedfields.NewTypeConverter(b.V3(b.Kinds()...), false)
		}
		if b.customMarkers {
			b.converter, b.converterErr = build()
			return
		}
		v, _ := sharedConverters.LoadOrStore(b.kindsFingerprint(), &sharedConverter{})
		sc := v.(*sharedConverter)
		sc.once.Do(func() {
			sc.tc, sc.err = build()
			sc.built.Store(sc.err == nil)
		})
		b.converter, b.converterErr = sc.tc, sc.err
	})
	return b.converter, b.converterErr
}

// sharedConverters are the type converters built so far in this process,
// by the kinds they cover (kindsFingerprint). A converter depends only on
// the scheme's kinds — their Go types and group/version/kinds — which
// every server of a process registers alike; building one costs tens of
// milliseconds of CPU, paid once per process instead of once per server
// (a test binary starts many). Converters are immutable once built.
var sharedConverters sync.Map

type sharedConverter struct {
	once  sync.Once
	tc    managedfields.TypeConverter
	err   error
	built atomic.Bool // tc is built and usable
}

// kindsFingerprint names the scheme's external kinds and their Go types,
// sorted: two schemes with the same fingerprint get the same converter.
func (b *Builder) kindsFingerprint() string {
	var kinds []string
	for gvk, t := range b.scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || !definable(t) {
			continue
		}
		kinds = append(kinds, gvk.String()+"="+t.PkgPath()+"."+t.Name())
	}
	sort.Strings(kinds)
	return strings.Join(kinds, "\n")
}

// closure builds (or finds in the cache) the definitions of roots and of
// every named struct type they reference.
func (b *Builder) closure(v version, roots []reflect.Type) map[string]*definition {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]*definition{}
	queue := make([]reflect.Type, 0, len(roots))
	for _, t := range roots {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t != nil && definable(t) {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		name := Name(t)
		if _, ok := out[name]; ok {
			continue
		}
		d := b.built[v][t]
		if d == nil {
			d = b.define(v, t)
			b.built[v][t] = d
		}
		out[name] = d
		queue = append(queue, d.deps...)
	}
	return out
}

// definable reports whether t gets a definition of its own: named
// structs, as openapi-gen only generates those.
func definable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.Name() != "" && !isUnstructured(t)
}

var unstructuredType = reflect.TypeFor[runtime.Unstructured]()

func isUnstructured(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(unstructuredType)
}
