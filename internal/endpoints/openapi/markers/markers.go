// Package markers holds the comment markers of the Go API types that
// reflection cannot see (+listType, +listMapKey, +mapType, +structType,
// +optional, +required, +default), keyed by OpenAPI definition name. The
// table is generated from the k8s.io/api, k8s.io/apimachinery and
// k8s.io/apiextensions-apiserver (apiextensions/v1) sources by ./gen.
package markers

import (
	"sync"
	"weak"
)

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
// Outside Pin the table may be rebuilt between calls.
func Lookup(definitionName string) (Type, bool) {
	mu.Lock()
	t := tableLocked()
	mu.Unlock()
	typ, ok := (*t)[definitionName]
	return typ, ok
}

// Pin keeps the table in memory until the returned unpin is called, for
// a walk that looks up many types.
func Pin() (unpin func()) {
	mu.Lock()
	defer mu.Unlock()
	pinned = tableLocked()
	pins++
	return sync.OnceFunc(func() {
		mu.Lock()
		defer mu.Unlock()
		if pins--; pins == 0 {
			pinned = nil
		}
	})
}

// The table (1.4 MB) is built on first use: as a package variable it cost
// every exec of the binary (kapi --help, the etcd drop-in) 2 ms and its
// allocations at init. Once the definitions are built, which a server
// does at its start, it is held only weakly, so an idle server does not
// keep it; a later build of definitions builds it again.
var (
	mu     sync.Mutex
	pinned *map[string]Type // while pins > 0
	pins   int
	cached weak.Pointer[map[string]Type]
)

func tableLocked() *map[string]Type {
	if pinned != nil {
		return pinned
	}
	if t := cached.Value(); t != nil {
		return t
	}
	t := buildTypes()
	cached = weak.Make(&t)
	return &t
}
