// Package markers holds the comment markers of the Go API types that
// reflection cannot see (+listType, +listMapKey, +mapType, +structType,
// +optional, +required, +default), keyed by OpenAPI definition name. The
// table is generated from the k8s.io/api and k8s.io/apimachinery sources
// by ./gen.
package markers

// Field is the markers of one struct field.
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
	// Default is the raw JSON of +default=, empty when unmarked.
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
// (io.k8s.api.apps.v1.Deployment).
func Lookup(definitionName string) (Type, bool) {
	t, ok := types[definitionName]
	return t, ok
}

// types is replaced by the generated table.
var types = map[string]Type{}
