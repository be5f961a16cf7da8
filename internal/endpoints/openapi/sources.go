package openapi

import (
	"cmp"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"maps"
	"reflect"
	"runtime/debug"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/routes"
)

// source is what one v3 document is built from, and what it adds to the
// v2 document: a group version's resources, or a discovery root ("apis",
// "version"). It is small and immutable, so snapshots share it; the
// document itself is built only when asked for, and its hash is known
// before: the document is a function of the source and of what baseHash
// covers.
type source struct {
	key  string
	hash string

	gv        schema.GroupVersion
	resources []routes.Resource
	// roots are the Go types of the resources' objects and lists.
	roots []reflect.Type
	// v2 and v3 are explicit definitions (custom resources), laid over
	// the ones built from Go types.
	v2 map[string]spec.Schema
	v3 map[string]*spec.Schema

	// root, when set, makes this the document of a discovery root.
	root *rootRoute
}

// v3Content is the paths and schemas of the source's v3 document, with
// definitions from b.
func (src *source) v3Content(b *definitions.Builder) (map[string]*spec3.Path, map[string]*spec.Schema) {
	if src.root != nil {
		return src.root.v3Path(), b.V3(src.root.response)
	}
	paths := routes.Build(src.gv, src.resources)
	defs := b.V3(append(slices.Clip(src.roots), paths.Types...)...)
	// V3 returns a new map; the schemas in it are the builder's.
	maps.Copy(defs, src.v3)
	scopeGVKs(defs, src.gv.Group, src.gv.Version)
	return paths.V3, defs
}

// v2Content is what the source adds to the v2 document.
func (src *source) v2Content(b *definitions.Builder) (map[string]spec.PathItem, map[string]spec.Schema) {
	if src.root != nil {
		return src.root.v2Path(), b.V2(src.root.response)
	}
	paths := routes.Build(src.gv, src.resources)
	defs := b.V2(append(slices.Clip(src.roots), paths.Types...)...)
	maps.Copy(defs, src.v2)
	return paths.V2, defs
}

// groupSourceLocked describes the resources of gv; v2 and v3 are the
// explicit definitions of custom resources, nil for built-in ones.
func (s *Service) groupSourceLocked(gv schema.GroupVersion, resources []routes.Resource, roots []reflect.Type, v2 map[string]spec.Schema, v3 map[string]*spec.Schema) *source {
	src := &source{key: keyOf(gv), gv: gv, resources: resources, roots: roots, v2: v2, v3: v3}
	rootNames := make([]string, len(roots))
	for i, t := range roots {
		rootNames[i] = definitions.Name(t)
	}
	hashed := make([]hashedResource, len(resources))
	for i, r := range resources {
		hashed[i] = hashedResource{Resource: r, ConnectOptions: typeName(r.ConnectOptions), GetOptions: typeName(r.GetOptions)}
	}
	src.hash = s.hashLocked(src.key, struct {
		GroupVersion schema.GroupVersion
		Resources    []hashedResource
		Roots        []string
		V2           map[string]spec.Schema
		V3           map[string]*spec.Schema
	}{gv, hashed, rootNames, v2, v3})
	return src
}

// rootSourceLocked describes a discovery root.
func (s *Service) rootSourceLocked(r rootRoute) *source {
	return &source{key: r.key, root: &r, hash: s.hashLocked(r.key, []any{
		r.path, r.description, r.operationID, r.tag, definitions.Name(r.response), r.mediaTypes,
	})}
}

// hashedResource is a routes.Resource as hashed: its Go types by name,
// as a reflect.Type has no JSON form (these fields shadow the embedded
// ones; every other field, present or future, is hashed as it is).
type hashedResource struct {
	routes.Resource
	ConnectOptions string
	GetOptions     string
}

// typeName names t with its package, for hashing.
func typeName(t reflect.Type) string {
	if t == nil {
		return ""
	}
	named := t
	for named.Kind() == reflect.Pointer {
		named = named.Elem()
	}
	return t.String() + " " + named.PkgPath()
}

// hashLocked is the hash of the document key described by content: a
// SHA-512 over the base hash, the key and content's JSON.
func (s *Service) hashLocked(key string, content any) string {
	h := sha512.New()
	h.Write(s.baseHashLocked())
	fmt.Fprintf(h, "%q\n", key)
	if err := json.NewEncoder(h).Encode(content); err != nil {
		// The document will fail to encode as well; any hash will do.
		io.WriteString(h, err.Error())
	}
	return hexHash(h.Sum(nil))
}

// baseHashLocked covers what every document depends on beside its
// source: the server's binary (the code that builds documents and the
// k8s.io/api version the types come from: a new build must not be served
// under a hash a client cached for good), the service's Info, and the
// kinds of the scheme (which name the x-kubernetes-group-version-kind of
// every definition). Computed once, on first use.
func (s *Service) baseHashLocked() []byte {
	if s.baseHash != nil {
		return s.baseHash
	}
	h := sha512.New()
	if bi, ok := debug.ReadBuildInfo(); ok {
		io.WriteString(h, bi.String())
	}
	info := s.specInfo()
	fmt.Fprintf(h, "\n%q %q\n", info.Title, info.Version)
	writeKinds(h, s.scheme.AllKnownTypes())
	s.baseHash = h.Sum(nil)
	return s.baseHash
}

// writeKinds writes every kind of known with its Go type, in order.
func writeKinds(h hash.Hash, known map[schema.GroupVersionKind]reflect.Type) {
	gvks := slices.SortedFunc(maps.Keys(known), func(a, b schema.GroupVersionKind) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Kind, b.Kind))
	})
	for _, gvk := range gvks {
		fmt.Fprintf(h, "%s %s\n", gvk, typeName(known[gvk]))
	}
}
