// Package markers holds the comment markers of the Go API types that
// reflection cannot see (+listType, +listMapKey, +mapType, +structType,
// +optional, +required, +default), keyed by OpenAPI definition name. The
// table is generated from the k8s.io/api, k8s.io/apimachinery and
// k8s.io/apiextensions-apiserver (apiextensions/v1) sources by ./gen.
package markers

import "sync"

//go:generate go run ./gen

// Field is the markers of one struct field. The +k8s: spellings
// (+k8s:optional, +k8s:listType=...) count the same as the plain ones.
type Field struct {
	// ListType is atomic, set or map; empty when unmarked.
	ListType string
	// ListMapKeys are the keys of a map list, in marker order.
	ListMapKeys []string
	// MapType is atomic or granular; empty when unmarked.
	MapType string
	// StructType is atomic or granular; empty when unmarked.
	StructType string
	// Optional is +optional; Required is +required.
	Optional, Required bool
	// Default is the raw JSON of +default=, empty when unmarked; a
	// +default=ref(Const) holds the constant's value as JSON.
	Default string
}

// Type is the markers of one named type and of its fields, by JSON name.
type Type struct {
	ListType   string
	MapType    string
	StructType string
	Fields     map[string]Field
}

// Lookup returns the markers of the type with the given definition name
// (io.k8s.api.apps.v1.Deployment). Types without any marker are absent.
// The result shares the table: callers must not modify its Fields.
func Lookup(definitionName string) (Type, bool) {
	t, ok := types()[definitionName]
	return t, ok
}

// types is the table, built on first use: as a package variable it cost
// every exec of the binary (kapi --help, the etcd drop-in) 2 ms and
// 1.5 MB of allocations at init.
var types = sync.OnceValue(buildTypes)
