package definitions_test

import (
	"testing"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/markers"
)

// BenchmarkDefinitions builds the v2 and v3 definitions of every kind of
// k8s.io/api from a cold builder, as the server does once at start.
func BenchmarkDefinitions(b *testing.B) {
	scheme := allScheme(b)
	kinds := definitions.NewBuilder(scheme).Kinds()
	for b.Loop() {
		builder := definitions.NewBuilder(scheme)
		if len(builder.V2(kinds...)) == 0 || len(builder.V3(kinds...)) == 0 {
			b.Fatal("no definitions")
		}
	}
}

// BenchmarkTypeConverter builds the server-side apply type converter of
// every kind of k8s.io/api from a cold builder (v3 definitions included),
// as the first server of a process does; the builder is made private (its
// own markers) so that the process-wide converter is not reused.
func BenchmarkTypeConverter(b *testing.B) {
	scheme := allScheme(b)
	for b.Loop() {
		builder := definitions.NewBuilder(scheme)
		definitions.SetMarkers(builder, markers.Lookup)
		if _, err := builder.TypeConverter(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCachedV3 is what a second document build costs: the
// definitions come from the cache.
func BenchmarkCachedV3(b *testing.B) {
	builder := definitions.NewBuilder(allScheme(b))
	kinds := builder.Kinds()
	builder.V3(kinds...)
	for b.Loop() {
		builder.V3(kinds...)
	}
}
