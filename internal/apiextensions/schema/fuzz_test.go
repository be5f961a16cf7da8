package schema

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// FuzzValidatePruneDefault feeds client-shaped objects through the whole
// pipeline: it must never panic, and pruning twice removes nothing more.
func FuzzValidatePruneDefault(f *testing.F) {
	js := mustSchema(f, specSchema)
	v, err := NewValidator(js)
	if err != nil {
		f.Fatal(err)
	}
	ss, errs := NewStructural(js, nil)
	if len(errs) > 0 {
		f.Fatal(errs)
	}
	for _, seed := range []string{
		`{"spec":{"size":3}}`,
		`{"spec":{"ports":[{"name":"a"},{"name":"a"}],"set":["x","x"]}}`,
		`{"spec":{"template":{"metadata":{"name":7}},"labels":{"a":null}}}`,
		`{"metadata":{"bogus":1},"spec":null,"status":[1,{"a":[]}]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		obj := map[string]any{}
		if err := utiljson.Unmarshal([]byte(in), &obj); err != nil {
			return
		}
		_ = v.Validate(runtime.DeepCopyJSON(obj))
		Prune(obj, ss, true)
		Default(obj, ss)
		_ = v.Validate(obj)
		if again := Prune(obj, ss, true); len(again) > 0 {
			t.Errorf("second prune removed %v", again)
		}
	})
}
