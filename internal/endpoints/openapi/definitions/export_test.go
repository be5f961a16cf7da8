package definitions

import "github.com/kapi-dev/kapi/internal/endpoints/openapi/markers"

// SetMarkers replaces the markers table b reads, for tests; call it
// before building anything.
func SetMarkers(b *Builder, lookup func(definitionName string) (markers.Type, bool)) {
	b.markers = lookup
	b.customMarkers = true
}
