package validation

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestValidateCELRules(t *testing.T) {
	path := field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")
	spec := func(rule string) *apiextensionsv1.JSONSchemaProps {
		return &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"a": {Type: "integer"}},
				XValidations: apiextensionsv1.ValidationRules{{Rule: rule}}},
		}}
	}
	tests := []struct {
		name string
		s    *apiextensionsv1.JSONSchemaProps
		want string
	}{
		{"valid", spec("self.a > 1"), ""},
		{"undefined field", spec("self.b > 1"), "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "},
		{"non-structural schema is skipped", &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {XValidations: apiextensionsv1.ValidationRules{{Rule: "self.b"}}}}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := validateCELRules(tc.s, path)
			if tc.want == "" {
				if len(errs) != 0 {
					t.Fatalf("unexpected errors %v", errs)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Fatalf("got %v, want one error containing %q", errs, tc.want)
			}
		})
	}
}
