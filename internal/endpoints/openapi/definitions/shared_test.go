package definitions_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/markers"
)

// TestTypeConverterShared: builders of schemes with the same kinds share
// one converter (each server of a process builds its own scheme); a scheme
// with other kinds, or a builder with its own markers, gets its own.
func TestTypeConverterShared(t *testing.T) {
	converter := func(b *definitions.Builder) any {
		t.Helper()
		tc, err := b.TypeConverter()
		if err != nil {
			t.Fatal(err)
		}
		return tc
	}
	first := converter(definitions.NewBuilder(allScheme(t)))
	if second := converter(definitions.NewBuilder(allScheme(t))); second != first {
		t.Error("two schemes with the same kinds got different converters")
	}
	apps := runtime.NewScheme()
	if err := appsv1.AddToScheme(apps); err != nil {
		t.Fatal(err)
	}
	if converter(definitions.NewBuilder(apps)) == first {
		t.Error("a scheme with other kinds got the same converter")
	}
	private := definitions.NewBuilder(allScheme(t))
	definitions.SetMarkers(private, markers.Lookup)
	if converter(private) == first {
		t.Error("a builder with its own markers got the shared converter")
	}
}
