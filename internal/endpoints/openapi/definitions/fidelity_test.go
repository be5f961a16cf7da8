package definitions_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/markers"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
)

// fidelityAllowed are the differences from client-go's apply schema that
// are expected, each with why. A listed difference that no longer shows
// up fails the test too, so the list stays true.
var fidelityAllowed = map[string]string{
	// client-go's schema was converted from the v2 document, where
	// IntOrString is a string of format int-or-string (an untyped
	// scalar). kube-apiserver converts its v3 definition (a oneOf with
	// no type), which schemaconv reads as "any value"; we build what
	// the server builds.
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString: list: ours set, theirs nil": "v3 oneOf, as kube-apiserver",
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString: map: ours set, theirs nil":  "v3 oneOf, as kube-apiserver",
}

// TestTypeConverterMatchesClientGo compares the server-side apply schema
// built from our definitions with the one client-go ships (generated from
// upstream's OpenAPI), over the named types reachable from every kind
// both know: field names, scalar kinds, list and map element
// relationships, list keys and element types. It runs over every group
// version of k8s.io/api and over kapi's own scheme.
func TestTypeConverterMatchesClientGo(t *testing.T) {
	all := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(all); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		scheme   *runtime.Scheme
		minKinds int
	}{
		{"k8s.io/api", all, 200},
		{"kapi", registrytest.NewScheme(t), 80},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diffs := compareWithClientGo(t, tc.scheme, tc.minKinds)
			var unexpected []string
			for _, d := range diffs {
				if _, ok := fidelityAllowed[d]; !ok {
					unexpected = append(unexpected, d)
				}
			}
			if len(unexpected) > 0 {
				t.Errorf("%d differences from client-go's apply schema:\n%s", len(unexpected), strings.Join(unexpected, "\n"))
			}
			for d := range fidelityAllowed {
				if !slices.Contains(diffs, d) {
					t.Errorf("allowed difference no longer seen (remove it): %s", d)
				}
			}
		})
	}
}

// compareWithClientGo returns the differences between the apply schemas
// of every kind scheme and client-go's scheme share.
func compareWithClientGo(t *testing.T, scheme *runtime.Scheme, minKinds int) []string {
	t.Helper()
	ours, err := definitions.NewBuilder(scheme).TypeConverter()
	if err != nil {
		t.Fatalf("TypeConverter: %v", err)
	}
	return compareConverters(t, scheme, ours, minKinds)
}

// compareConverters compares ours with client-go's converter.
func compareConverters(t *testing.T, scheme *runtime.Scheme, ours managedfields.TypeConverter, minKinds int) []string {
	t.Helper()
	theirs := applyconfigurations.NewTypeConverter(clientgoscheme.Scheme)

	c := &smdComparison{seen: map[string]bool{}, pairs: map[string]bool{}}
	compared := 0
	for _, gvk := range sortedKinds(clientgoscheme.Scheme) {
		typ, ok := scheme.AllKnownTypes()[gvk]
		if !ok || typ != clientgoscheme.Scheme.AllKnownTypes()[gvk] {
			continue
		}
		obj, err := scheme.New(gvk)
		if err != nil {
			t.Fatalf("New(%v): %v", gvk, err)
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		want, err := theirs.ObjectToTyped(obj)
		if err != nil {
			continue // client-go has no apply schema for it (options, WatchEvent)
		}
		got, err := ours.ObjectToTyped(obj)
		if err != nil {
			c.add("%v: ours: %v", gvk, err)
			continue
		}
		compared++
		c.ours, c.theirs = got.Schema(), want.Schema()
		c.ref(gvk.String(), got.TypeRef(), want.TypeRef())
	}
	if compared < minKinds {
		t.Errorf("compared %d kinds, want at least %d: is the scheme complete?", compared, minKinds)
	}
	t.Logf("compared %d kinds, %d named types", compared, len(c.seen))
	return c.diffs
}

func sortedKinds(s *runtime.Scheme) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for gvk := range s.AllKnownTypes() {
		if gvk.Version != runtime.APIVersionInternal {
			out = append(out, gvk)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// smdComparison walks two SMD schemas side by side from a type, each
// named type once, collecting differences as "path: what".
type smdComparison struct {
	ours, theirs *smdschema.Schema
	seen         map[string]bool
	pairs        map[string]bool
	diffs        []string
}

func (c *smdComparison) add(format string, args ...any) {
	c.diffs = append(c.diffs, fmt.Sprintf(format, args...))
}

func (c *smdComparison) named(name string) {
	if c.seen[name] {
		return
	}
	c.seen[name] = true
	o, ok := c.ours.FindNamedType(name)
	th, ok2 := c.theirs.FindNamedType(name)
	switch {
	case !ok && !ok2:
		c.add("%s: missing in both", name)
	case !ok:
		c.add("%s: missing in ours", name)
	case !ok2:
		c.add("%s: missing in theirs", name)
	default:
		c.atom(name, o.Atom, th.Atom)
	}
}

func (c *smdComparison) ref(path string, o, th smdschema.TypeRef) {
	if er, ter := deref(o.ElementRelationship), deref(th.ElementRelationship); er != ter {
		c.add("%s: element relationship ours %q, theirs %q", path, er, ter)
	}
	if o.Nullable != th.Nullable {
		c.add("%s: nullable ours %v, theirs %v", path, o.Nullable, th.Nullable)
	}
	on, tn := "", ""
	if o.NamedType != nil {
		on = *o.NamedType
	}
	if th.NamedType != nil {
		tn = *th.NamedType
	}
	switch {
	case on != "" && on == tn:
		c.named(on)
	case on == "" && tn == "":
		c.atom(path, o.Inlined, th.Inlined)
	default:
		// Different names, or a name against an inlined type, can
		// still be the same type (RawExtension is __untyped_atomic_;
		// an inlined free-form map is __untyped_deduced_): compare
		// what they resolve to, once per pair.
		pair := on + "|" + tn
		if c.pairs[pair] {
			return
		}
		c.pairs[pair] = true
		c.atom(fmt.Sprintf("%s (ours %q, theirs %q)", path, on, tn), c.resolve(c.ours, on, o.Inlined), c.resolve(c.theirs, tn, th.Inlined))
	}
}

// resolve is the atom of the named type name, or inlined when unnamed.
func (c *smdComparison) resolve(s *smdschema.Schema, name string, inlined smdschema.Atom) smdschema.Atom {
	if name == "" {
		return inlined
	}
	td, ok := s.FindNamedType(name)
	if !ok {
		c.add("%s: missing", name)
	}
	return td.Atom
}

func (c *smdComparison) atom(path string, o, th smdschema.Atom) {
	if s, ts := derefScalar(o.Scalar), derefScalar(th.Scalar); s != ts {
		c.add("%s: scalar ours %q, theirs %q", path, s, ts)
	}
	switch {
	case (o.List == nil) != (th.List == nil):
		c.add("%s: list: %s", path, presence(o.List != nil, th.List != nil))
	case o.List != nil:
		if o.List.ElementRelationship != th.List.ElementRelationship {
			c.add("%s: list relationship ours %q, theirs %q", path, o.List.ElementRelationship, th.List.ElementRelationship)
		}
		if !slices.Equal(o.List.Keys, th.List.Keys) {
			c.add("%s: list keys ours %v, theirs %v", path, o.List.Keys, th.List.Keys)
		}
		c.ref(path+"[]", o.List.ElementType, th.List.ElementType)
	}
	switch {
	case (o.Map == nil) != (th.Map == nil):
		c.add("%s: map: %s", path, presence(o.Map != nil, th.Map != nil))
	case o.Map != nil:
		c.mapAtom(path, o.Map, th.Map)
	}
}

func (c *smdComparison) mapAtom(path string, o, th *smdschema.Map) {
	if o.ElementRelationship != th.ElementRelationship {
		c.add("%s: map relationship ours %q, theirs %q", path, o.ElementRelationship, th.ElementRelationship)
	}
	names := map[string]bool{}
	for _, f := range o.Fields {
		names[f.Name] = true
	}
	for _, f := range th.Fields {
		names[f.Name] = true
	}
	for _, n := range slices.Sorted(mapsKeys(names)) {
		of, ok := o.FindField(n)
		tf, ok2 := th.FindField(n)
		switch {
		case !ok:
			c.add("%s.%s: field missing in ours", path, n)
		case !ok2:
			c.add("%s.%s: field missing in theirs", path, n)
		default:
			c.ref(path+"."+n, of.Type, tf.Type)
		}
	}
	c.ref(path+"{}", o.ElementType, th.ElementType)
}

func presence(ours, theirs bool) string {
	p := func(b bool) string {
		if b {
			return "set"
		}
		return "nil"
	}
	return "ours " + p(ours) + ", theirs " + p(theirs)
}

func deref(r *smdschema.ElementRelationship) smdschema.ElementRelationship {
	if r == nil {
		return ""
	}
	return *r
}

func derefScalar(s *smdschema.Scalar) smdschema.Scalar {
	if s == nil {
		return ""
	}
	return *s
}

func mapsKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestFidelityComparisonCatchesMissingMarkers makes sure the comparison
// above can fail: without the markers table, list types and keys differ.
func TestFidelityComparisonCatchesMissingMarkers(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	b := definitions.NewBuilder(scheme)
	definitions.SetMarkers(b, func(string) (markers.Type, bool) { return markers.Type{}, false })
	ours, err := b.TypeConverter()
	if err != nil {
		t.Fatalf("TypeConverter: %v", err)
	}
	diffs := compareConverters(t, scheme, ours, 200)
	for _, want := range []string{
		// +structType=atomic is lost.
		"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector: map relationship ours \"\", theirs \"atomic\"",
		// The patch merge key alone gives one key of two +listMapKey.
		"io.k8s.api.core.v1.VolumeHealthStatus.healthConditions: list keys ours [status], theirs [status reason]",
	} {
		if !slices.Contains(diffs, want) {
			t.Errorf("difference not reported: %s\nreported %d:\n%s", want, len(diffs), strings.Join(diffs[:min(len(diffs), 20)], "\n"))
		}
	}
}
