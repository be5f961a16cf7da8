package schema

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// benchSchema has 50 typed spec fields with defaults and validations.
func benchSchema(b *testing.B) (string, map[string]any) {
	var props strings.Builder
	spec := map[string]any{}
	for i := range 50 {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&props, "      f%d: {type: string, pattern: '^[a-z0-9]+$', maxLength: 20, default: d}\n", i)
			spec[fmt.Sprintf("f%d", i)] = "value"
		case 1:
			fmt.Fprintf(&props, "      f%d: {type: integer, minimum: 0, maximum: 1000, default: 1}\n", i)
			spec[fmt.Sprintf("f%d", i)] = int64(i)
		default:
			fmt.Fprintf(&props, "      f%d: {type: array, x-kubernetes-list-type: set, items: {type: string}}\n", i)
			spec[fmt.Sprintf("f%d", i)] = []any{"a", "b", "c"}
		}
	}
	spec["unknown"] = "x"
	s := "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n" + props.String()
	obj := map[string]any{"apiVersion": "g/v1", "kind": "K", "metadata": map[string]any{"name": "n"}, "spec": spec}
	return s, obj
}

func BenchmarkValidatePruneDefault(b *testing.B) {
	s, obj := benchSchema(b)
	js := mustSchema(b, s)
	v, err := NewValidator(js)
	if err != nil {
		b.Fatal(err)
	}
	ss, errs := NewStructural(js, nil)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	b.ReportAllocs()
	for b.Loop() {
		o := runtime.DeepCopyJSON(obj)
		Prune(o, ss, true)
		Default(o, ss)
		if errs := v.Validate(o); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

func BenchmarkNewValidator(b *testing.B) {
	s, _ := benchSchema(b)
	js := mustSchema(b, s)
	for b.Loop() {
		if _, err := NewValidator(js); err != nil {
			b.Fatal(err)
		}
	}
}
