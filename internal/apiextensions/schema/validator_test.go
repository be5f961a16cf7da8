package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const specSchema = `
type: object
properties:
  spec:
    type: object
    required: [size]
    properties:
      replicas: {type: integer, format: int32}
      size: {type: integer, minimum: 1, maximum: 10}
      exclusive: {type: number, minimum: 0, exclusiveMinimum: true}
      color: {type: string, enum: [red, blue]}
      name: {type: string, pattern: '^[a-z]+$', minLength: 2, maxLength: 5}
      when: {type: string, format: date-time}
      custom: {type: string, format: made-up}
      port: {x-kubernetes-int-or-string: true}
      maybe: {type: string, nullable: true}
      tags:
        type: array
        minItems: 1
        maxItems: 2
        items: {type: string}
      uniq: {type: array, uniqueItems: true, items: {type: integer}}
      set: {type: array, x-kubernetes-list-type: set, items: {type: string}}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string}
            port: {type: integer}
      labels:
        type: object
        maxProperties: 1
        additionalProperties: {type: string}
      choice:
        type: object
        properties:
          a: {type: string}
          b: {type: string}
        oneOf:
        - required: [a]
        - required: [b]
      template:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
      rules:
        type: string
        x-kubernetes-validations:
        - rule: self.size() > 1
`

func TestValidate(t *testing.T) {
	v, err := NewValidator(mustSchema(t, specSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		obj  string
		want []string
	}{
		{"valid", `{spec: {size: 3, color: red, name: abc, port: 80, maybe: null, when: "2024-01-02T03:04:05Z", custom: anything, rules: x}}`, nil},
		{"int-or-string string", `{spec: {size: 3, port: http}}`, nil},
		{"type", `{spec: {size: 3, replicas: string}}`,
			[]string{`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`}},
		{"minimum", `{spec: {size: 0}}`,
			[]string{`spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`}},
		{"maximum", `{spec: {size: 11}}`,
			[]string{`spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`}},
		{"exclusive minimum", `{spec: {size: 1, exclusive: 0}}`,
			[]string{`spec.exclusive: Invalid value: 0: spec.exclusive in body should be greater than 0`}},
		{"enum", `{spec: {size: 1, color: green}}`,
			[]string{`spec.color: Unsupported value: "green": supported values: "red", "blue"`}},
		{"pattern", `{spec: {size: 1, name: Bad}}`,
			[]string{`spec.name: Invalid value: "Bad": spec.name in body should match '^[a-z]+$'`}},
		{"min length", `{spec: {size: 1, name: a}}`,
			[]string{`spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long`}},
		{"max length", `{spec: {size: 1, name: abcdef}}`,
			[]string{`spec.name: Too long: may not be more than 5 bytes`}},
		{"required", `{spec: {}}`, []string{`spec.size: Required value`}},
		{"int32 format", `{spec: {size: 1, replicas: 3000000000}}`,
			// kube-openapi names the field in the message only, as upstream shows.
			[]string{`<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.replicas`}},
		{"date-time format", `{spec: {size: 1, when: yesterday}}`,
			[]string{`spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"`}},
		{"int-or-string wrong", `{spec: {size: 1, port: true}}`,
			[]string{`spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"`}},
		{"not nullable", `{spec: {size: 1, name: null}}`,
			[]string{`spec.name: Invalid value: "null": spec.name in body must be of type string: "null"`}},
		{"min items", `{spec: {size: 1, tags: []}}`,
			[]string{`spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items`}},
		{"max items", `{spec: {size: 1, tags: [a, b, c]}}`,
			[]string{`spec.tags: Too many: 3: must have at most 2 items`}},
		{"nested array item type", `{spec: {size: 1, tags: [a, 1]}}`,
			[]string{`spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"`}},
		{"unique items", `{spec: {size: 1, uniq: [1, 1]}}`,
			[]string{`spec.uniq: Invalid value: "": spec.uniq in body shouldn't contain duplicates`}},
		{"map value type", `{spec: {size: 1, labels: {a: 1}}}`,
			[]string{`spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"`}},
		{"max properties", `{spec: {size: 1, labels: {a: x, b: z}}}`,
			[]string{`spec.labels: Too many: 2: must have at most 1 item`}},
		{"oneOf none", `{spec: {size: 1, choice: {}}}`,
			[]string{
				`<nil>: Invalid value: "": "spec.choice" must validate one and only one schema (oneOf). Found none valid`,
				`spec.choice.a: Required value`,
			}},
		{"list-type set duplicate", `{spec: {size: 1, set: [a, b, a]}}`,
			[]string{`spec.set[2]: Duplicate value: "a"`}},
		{"list-type map duplicate", `{spec: {size: 1, ports: [{name: a}, {name: a, port: 2}]}}`,
			[]string{`spec.ports[1]: Duplicate value: {"name":"a"}`}},
		{"embedded resource", `{spec: {size: 1, template: {kind: "", metadata: {name: "a/b"}}}}`,
			[]string{
				`spec.template.apiVersion: Required value`,
				`spec.template.kind: Invalid value: "": must not be empty`,
				`spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errStrings(v.Validate(mustObject(t, tt.obj)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidatorNilSchema(t *testing.T) {
	v, err := NewValidator(nil)
	if err != nil {
		t.Fatal(err)
	}
	if errs := v.Validate(map[string]any{"anything": 1}); len(errs) != 0 {
		t.Errorf("nil schema: got %v", errs)
	}
}
