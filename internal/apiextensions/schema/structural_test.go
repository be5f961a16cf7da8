package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestNewStructuralErrors(t *testing.T) {
	root := field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")
	tests := []struct {
		name   string
		schema string
		want   []string
	}{
		{"structural", `{type: object, properties: {spec: {type: object, x-kubernetes-validations: [{rule: "self.a > 1"}], properties: {a: {type: integer, default: 1}}}}}`, nil},
		{"missing field type", `{type: object, properties: {spec: {properties: {a: {type: string}}}}}`,
			[]string{"spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"}},
		{"missing root type", `{properties: {spec: {type: object}}}`,
			[]string{"spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root"}},
		{"missing items type", `{type: object, properties: {l: {type: array, items: {}}}}`,
			[]string{"spec.versions[0].schema.openAPIV3Schema.properties[l].items.type: Required value: must not be empty for specified array items"}},
		{"array without items", `{type: object, properties: {l: {type: array}}}`,
			[]string{"spec.versions[0].schema.openAPIV3Schema.properties[l].items: Required value: must be specified"}},
		{"ref", `{type: object, properties: {a: {type: string, $ref: "#/definitions/x"}}}`,
			[]string{"spec.versions[0].schema.openAPIV3Schema.properties[a].$ref: Forbidden: $ref is not supported"}},
		{"root not object", `{type: string}`,
			[]string{`spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root`}},
		{"type in anyOf", `{type: object, properties: {a: {type: string, anyOf: [{type: string}]}}}`,
			[]string{"spec.versions[0].schema.openAPIV3Schema.properties[a].anyOf[0].type: Forbidden: must be empty to be structural"}},
		{"int-or-string anyOf allowed", `{type: object, properties: {a: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}}}`, nil},
		{"incomplete allOf", `{type: object, properties: {a: {type: object}}, allOf: [{properties: {a: {properties: {b: {minLength: 1}}}}}]}`,
			[]string{"spec.versions[0].schema.openAPIV3Schema.properties[a].properties[b]: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.allOf[0].properties[a].properties[b]"}},
		{"complete allOf", `{type: object, properties: {a: {type: object, properties: {b: {type: string}}}}, allOf: [{properties: {a: {properties: {b: {minLength: 1}}}}}]}`, nil},
		{"metadata beyond name", `{type: object, properties: {metadata: {type: object, properties: {labels: {type: object}}}}}`,
			[]string{"spec.versions[0].schema.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"}},
		{"metadata name allowed", `{type: object, properties: {metadata: {type: object, properties: {name: {type: string, maxLength: 8}}}}}`, nil},
		{"embedded not object", `{type: object, properties: {e: {type: string, x-kubernetes-embedded-resource: true}}}`,
			[]string{
				`spec.versions[0].schema.openAPIV3Schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
				`spec.versions[0].schema.openAPIV3Schema.properties[e].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
			}},
		{"preserve false", `{type: object, x-kubernetes-preserve-unknown-fields: false}`,
			[]string{"spec.versions[0].schema.openAPIV3Schema.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined"}},
		{"bad pattern", `{type: object, properties: {a: {type: string, pattern: "("}}}`,
			[]string{"spec.versions[0].schema.openAPIV3Schema.properties[a].pattern: Invalid value: \"(\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): `(`"}},
		{"root additionalProperties", `{type: object, additionalProperties: {type: string}}`,
			[]string{"spec.versions[0].schema.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, errs := NewStructural(mustSchema(t, tt.schema), root)
			if ss == nil {
				t.Fatal("nil Structural")
			}
			if diff := cmp.Diff(tt.want, errStrings(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewStructuralShape(t *testing.T) {
	ss := mustStructural(t, `{type: object, properties: {spec: {type: object, x-kubernetes-validations: [{rule: "true"}], properties: {
	  num: {type: integer, default: 3}, l: {type: array, x-kubernetes-list-type: set, items: {type: string}},
	  m: {type: object, additionalProperties: {type: string}}}}}}`)
	spec := ss.Properties["spec"]
	if spec.Properties["num"].Default != float64(3) {
		t.Errorf("default: got %#v", spec.Properties["num"].Default)
	}
	if spec.Properties["l"].XListType != "set" || spec.Properties["l"].Items.Type != "string" {
		t.Errorf("list: got %+v", spec.Properties["l"])
	}
	if ap := spec.Properties["m"].AdditionalProperties; ap == nil || ap.Structural.Type != "string" {
		t.Errorf("additionalProperties: got %+v", ap)
	}
	if len(spec.XValidations) != 1 {
		t.Errorf("x-kubernetes-validations: got %v", spec.XValidations)
	}
}
