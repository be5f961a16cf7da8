package definitions_test

import (
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
)

// TestKindTypeConverterMatchesFull: a kind's own converter gives the
// kind the same apply schema as the converter of every kind (field
// names, scalars, list and map relationships, list keys, element types
// of every named type it reaches), for every kind of kapi's scheme, so
// the managed fields a server records do not depend on which one it
// used.
func TestKindTypeConverterMatchesFull(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	b := definitions.NewBuilder(scheme)
	full, err := b.TypeConverter()
	if err != nil {
		t.Fatal(err)
	}
	c := &smdComparison{seen: map[string]bool{}, pairs: map[string]bool{}}
	compared := 0
	for _, gvk := range sortedKinds(scheme) {
		obj, err := scheme.New(gvk)
		if err != nil {
			t.Fatal(err)
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		want, err := full.ObjectToTyped(obj)
		if err != nil {
			continue // no schema (internal versions, unstructured kinds)
		}
		own, err := definitions.NewBuilder(scheme).KindTypeConverter(gvk)
		if err != nil {
			t.Errorf("%v: KindTypeConverter: %v", gvk, err)
			continue
		}
		got, err := own.ObjectToTyped(obj)
		if err != nil {
			t.Errorf("%v: ObjectToTyped with the kind's converter: %v", gvk, err)
			continue
		}
		compared++
		// Each kind's schema is its own: compare its types afresh.
		c.seen, c.pairs = map[string]bool{}, map[string]bool{}
		c.ours, c.theirs = got.Schema(), want.Schema()
		c.ref(gvk.String(), got.TypeRef(), want.TypeRef())
	}
	if compared < 80 {
		t.Errorf("compared %d kinds, want at least 80", compared)
	}
	if len(c.diffs) > 0 {
		t.Errorf("%d differences between a kind's own converter and the full one:\n%s", len(c.diffs), strings.Join(c.diffs, "\n"))
	}
}
