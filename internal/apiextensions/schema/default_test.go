package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const defaultSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer, default: 1}
      mode: {type: string, default: auto}
      opt: {type: string, nullable: true, default: x}
      nested:
        type: object
        default: {}
        properties:
          inner: {type: string, default: in}
      items:
        type: array
        items:
          type: object
          default: {name: d}
          properties:
            name: {type: string}
            weight: {type: integer, default: 5}
      m:
        type: object
        additionalProperties:
          type: object
          default: {}
          properties:
            v: {type: string, default: mv}
`

func TestDefault(t *testing.T) {
	ss := mustStructural(t, defaultSchema)
	tests := []struct {
		name, obj, want string
	}{
		{"no spec, nothing defaulted", `{}`, `{}`},
		{"fields of existing object", `{spec: {}}`, `{spec: {replicas: 1, mode: auto, opt: x, nested: {inner: in}}}`},
		{"set values kept", `{spec: {replicas: 3, mode: manual, opt: y, nested: {inner: mine}}}`,
			`{spec: {replicas: 3, mode: manual, opt: y, nested: {inner: mine}}}`},
		{"null replaced unless nullable", `{spec: {replicas: null, opt: null}}`,
			`{spec: {replicas: 1, mode: auto, opt: null, nested: {inner: in}}}`},
		{"array items", `{spec: {items: [{name: a}, null, {name: b, weight: 2}]}}`,
			`{spec: {replicas: 1, mode: auto, opt: x, nested: {inner: in}, items: [{name: a, weight: 5}, {name: d, weight: 5}, {name: b, weight: 2}]}}`},
		{"additionalProperties", `{spec: {m: {a: {}, b: null}}}`,
			`{spec: {replicas: 1, mode: auto, opt: x, nested: {inner: in}, m: {a: {v: mv}, b: {v: mv}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := mustObject(t, tt.obj)
			Default(obj, ss)
			// Defaults decode as float64 from the schema; compare as JSON numbers.
			if diff := cmp.Diff(normalize(mustObject(t, tt.want)), normalize(obj)); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDefaultDoesNotAlias(t *testing.T) {
	ss := mustStructural(t, defaultSchema)
	a, b := mustObject(t, `{spec: {}}`), mustObject(t, `{spec: {}}`)
	Default(a, ss)
	Default(b, ss)
	a["spec"].(map[string]any)["nested"].(map[string]any)["inner"] = "changed"
	if got := b["spec"].(map[string]any)["nested"].(map[string]any)["inner"]; got != "in" {
		t.Errorf("defaults share memory: got %v", got)
	}
}

func normalize(x any) any {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			x[k] = normalize(v)
		}
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
	case int64:
		return float64(x)
	}
	return x
}
