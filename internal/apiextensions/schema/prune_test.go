package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const pruneSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      a: {type: string}
      list:
        type: array
        items: {type: object, properties: {x: {type: integer}}}
      free: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {typed: {type: object, properties: {k: {type: string}}}}}
      m: {type: object, additionalProperties: {type: object, properties: {v: {type: string}}}}
      embedded: {type: object, x-kubernetes-embedded-resource: true, properties: {spec: {type: object, properties: {b: {type: string}}}}}
`

func TestPrune(t *testing.T) {
	ss := mustStructural(t, pruneSchema)
	tests := []struct {
		name        string
		obj, want   string
		wantRemoved []string
	}{
		{"known kept",
			`{apiVersion: g/v1, kind: K, metadata: {name: n, labels: {a: b}}, spec: {a: x, list: [{x: 1}]}}`,
			`{apiVersion: g/v1, kind: K, metadata: {name: n, labels: {a: b}}, spec: {a: x, list: [{x: 1}]}}`, nil},
		{"unknown nested removed",
			`{apiVersion: g/v1, kind: K, spec: {a: x, foo: 1, list: [{x: 1, z: 2}]}, status: {}}`,
			`{apiVersion: g/v1, kind: K, spec: {a: x, list: [{x: 1}]}}`,
			[]string{"spec.foo", "spec.list[0].z", "status"}},
		{"preserve unknown fields kept, typed children pruned",
			`{spec: {free: {any: {deep: 1}, typed: {k: v, drop: 1}}}}`,
			`{spec: {free: {any: {deep: 1}, typed: {k: v}}}}`,
			[]string{"spec.free.typed.drop"}},
		{"additionalProperties pruned by their schema",
			`{spec: {m: {k1: {v: a, w: b}}}}`,
			`{spec: {m: {k1: {v: a}}}}`,
			[]string{"spec.m.k1.w"}},
		{"metadata pruned to ObjectMeta",
			`{metadata: {name: n, bogus: 1}, spec: {embedded: {apiVersion: v1, kind: K, metadata: {name: e, junk: 2}, spec: {b: x, c: y}}}}`,
			`{metadata: {name: n}, spec: {embedded: {apiVersion: v1, kind: K, metadata: {name: e}, spec: {b: x}}}}`,
			[]string{"metadata.bogus", "spec.embedded.metadata.junk", "spec.embedded.spec.c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := mustObject(t, tt.obj)
			removed := Prune(obj, ss, true)
			if diff := cmp.Diff(mustObject(t, tt.want), obj); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRemoved, removed); diff != "" {
				t.Errorf("removed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPruneNotResourceRoot(t *testing.T) {
	obj := mustObject(t, `{kind: K, a: 1}`)
	removed := Prune(obj, mustStructural(t, `{type: object, properties: {a: {type: integer}}}`), false)
	if diff := cmp.Diff(map[string]any{"a": int64(1)}, obj); diff != "" {
		t.Errorf("object (-want +got):\n%s", diff)
	}
	if len(removed) != 0 {
		t.Errorf("top-level kind must not be reported: %v", removed)
	}
}
