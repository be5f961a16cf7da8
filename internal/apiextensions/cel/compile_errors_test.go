package cel

import (
	"context"
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apiextensions/schema"
)

func TestCompileErrors(t *testing.T) {
	base := field.NewPath("spec", "validation", "openAPIV3Schema")
	tests := []struct {
		name   string
		schema *schema.Structural
		count  int
		want   []string // substrings of the errors
	}{
		{"valid", root(obj(map[string]*schema.Structural{"a": typ("integer")}, rule("self.a > 1"))), 0, nil},
		{"undefined field", root(obj(nil, rule("self.foo == 1"))),
			1, []string{"spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ", "compilation failed: ERROR: <input>:1:5: undefined field 'foo'"}},
		{"syntax error", root(typ("object"), rule("self.==")),
			1, []string{"spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: ", "compilation failed: ERROR: <input>:1:6: Syntax error"}},
		{"not a bool", root(typ("object"), rule("1")),
			1, []string{"x-kubernetes-validations[0].rule: Invalid value: ", "cel expression must evaluate to a bool"}},
		{"no matching overload", root(obj(map[string]*schema.Structural{"a": typ("string")}, rule("self.a > 1"))),
			1, []string{"x-kubernetes-validations[0].rule", "found no matching overload for '_>_' applied to '(string, int)'"}},
		{"cost exceeded", root(obj(map[string]*schema.Structural{"l": {Type: "array", Items: typ("string")}}, rule("self.l.all(a, self.l.all(b, a == b))"))),
			3, []string{"properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
				"openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
				"spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x"}},
		{"cost bounded by maxItems and maxLength", root(obj(map[string]*schema.Structural{"l": {Type: "array", MaxItems: ptr(int64(100)), Items: &schema.Structural{Type: "string", MaxLength: ptr(int64(64))}}}, rule("self.l.all(a, self.l.all(b, a == b))"))),
			0, nil},
		{"rules in a bounded list of objects", root(obj(map[string]*schema.Structural{"l": {Type: "array", MaxItems: ptr(int64(10)),
			Items: obj(map[string]*schema.Structural{"s": {Type: "string", MaxLength: ptr(int64(10))}}, rule("self.s.matches('^[a-z]+$')"))}})),
			0, nil},
		{"messageExpression not a string", root(typ("object"), apiextv1.ValidationRule{Rule: "true", MessageExpression: "1"}),
			1, []string{"x-kubernetes-validations[0].messageExpression: Invalid value: ", "messageExpression must evaluate to a string"}},
		{"messageExpression compile error", root(typ("object"), apiextv1.ValidationRule{Rule: "true", MessageExpression: "self.x"}),
			1, []string{"x-kubernetes-validations[0].messageExpression: Invalid value: ", "messageExpression compilation failed: ERROR: <input>:1:5: undefined field 'x'"}},
		{"oldSelf under atomic list", root(obj(map[string]*schema.Structural{"l": {Type: "array", Items: typ("integer", rule("self == oldSelf"))}})),
			1, []string{"properties[spec].properties[l].items.x-kubernetes-validations[0].rule: Invalid value: \"self == oldSelf\": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[l]"}},
		{"optionalOldSelf without oldSelf", root(typ("object"), apiextv1.ValidationRule{Rule: "true", OptionalOldSelf: ptr(true)}),
			1, []string{"x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"}},
		{"invalid fieldPath", root(typ("object"), apiextv1.ValidationRule{Rule: "true", FieldPath: ".nope"}),
			1, []string{"x-kubernetes-validations[0].fieldPath: Invalid value: \".nope\": must be a valid path"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := errStrings(CompileErrors(tc.schema, base))
			if len(got) != tc.count {
				t.Fatalf("got %d errors %q, want %d", len(got), got, tc.count)
			}
			joined := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("errors %q do not contain %q", got, w)
				}
			}
		})
	}
}

func TestValidFieldPath(t *testing.T) {
	s := obj(map[string]*schema.Structural{
		"a": obj(map[string]*schema.Structural{"b.c": typ("string")}),
		"m": {Type: "object", AdditionalProperties: &schema.StructuralOrBool{Bool: true, Structural: typ("string")}},
	})
	tests := []struct{ in, want, err string }{
		{".a", "a", ""},
		{".a['b.c']", "a.b.c", ""},
		{".m.key", "m[key]", ""},
		{".m['x\\'y']", "m[x'y]", ""},
		{".nope", "", "does not refer to a valid field"},
		{"a", "", "expected [ or . but got: a"},
		{".a['b.c'", "", "unexpected end of JSON path"},
	}
	for _, tc := range tests {
		p, err := validFieldPath(tc.in, s)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		got := ""
		if p != nil {
			got = p.String()
		}
		if got != tc.want || gotErr != tc.err {
			t.Errorf("validFieldPath(%q) = %q, %q; want %q, %q", tc.in, got, gotErr, tc.want, tc.err)
		}
	}
}

func BenchmarkValidate50Fields5Rules(b *testing.B) {
	props := map[string]*schema.Structural{}
	o := map[string]any{}
	for i := range 50 {
		name := "f" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		props[name] = typ("integer")
		o[name] = int64(i)
	}
	s := root(obj(props,
		rule("self.faa >= 0"), rule("self.fba < 100"), rule("has(self.fca) && self.fca != 5"),
		apiextv1.ValidationRule{Rule: "self.fda + self.fea < 1000", Message: "too big"},
		rule("self.faa <= self.fxb")))
	v, err := Compile(s)
	if err != nil {
		b.Fatal(err)
	}
	u := map[string]any{"spec": o}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if errs := v.Validate(ctx, u, nil); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}
