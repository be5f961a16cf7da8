package cel

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apiextensions/schema"
)

func obj(props map[string]*schema.Structural, rules ...apiextv1.ValidationRule) *schema.Structural {
	return &schema.Structural{Type: "object", Properties: props, XValidations: rules}
}

func typ(t string, rules ...apiextv1.ValidationRule) *schema.Structural {
	return &schema.Structural{Type: t, XValidations: rules}
}

func rule(r string) apiextv1.ValidationRule { return apiextv1.ValidationRule{Rule: r} }

func root(spec *schema.Structural, rules ...apiextv1.ValidationRule) *schema.Structural {
	return obj(map[string]*schema.Structural{"spec": spec}, rules...)
}

func errStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func TestValidate(t *testing.T) {
	list := &schema.Structural{Type: "array", Items: typ("integer", rule("self > 0"))}
	mapOf := &schema.Structural{Type: "object", AdditionalProperties: &schema.StructuralOrBool{Bool: true, Structural: typ("string", rule("self.size() < 3"))}}
	tests := []struct {
		name   string
		schema *schema.Structural
		obj    map[string]any
		old    map[string]any
		want   []string
	}{
		{"plain rule passes", root(obj(map[string]*schema.Structural{"a": typ("integer")}, rule("self.a > 1"))),
			map[string]any{"spec": map[string]any{"a": int64(2)}}, nil, nil},
		{"plain rule fails", root(obj(map[string]*schema.Structural{"a": typ("integer")}, rule("self.a > 1"))),
			map[string]any{"spec": map[string]any{"a": int64(1)}}, nil,
			[]string{"spec: Invalid value: failed rule: self.a > 1"}},
		{"scalar value shown", root(obj(map[string]*schema.Structural{"a": typ("integer", rule("self > 1"))})),
			map[string]any{"spec": map[string]any{"a": int64(1)}}, nil,
			[]string{"spec.a: Invalid value: 1: failed rule: self > 1"}},
		{"message", root(obj(nil, apiextv1.ValidationRule{Rule: "false", Message: " no "})),
			map[string]any{"spec": map[string]any{}}, nil,
			[]string{"spec: Invalid value: no"}},
		{"messageExpression", root(obj(map[string]*schema.Structural{"a": typ("string")}, apiextv1.ValidationRule{Rule: "false", Message: "static", MessageExpression: "'bad ' + self.a"})),
			map[string]any{"spec": map[string]any{"a": "x"}}, nil,
			[]string{"spec: Invalid value: bad x"}},
		{"messageExpression empty falls back", root(obj(nil, apiextv1.ValidationRule{Rule: "false", Message: "static", MessageExpression: "''"})),
			map[string]any{"spec": map[string]any{}}, nil,
			[]string{"spec: Invalid value: static"}},
		{"reason forbidden", root(obj(nil, apiextv1.ValidationRule{Rule: "false", Message: "m", Reason: ptr(apiextv1.FieldValueErrorReason("FieldValueForbidden"))})),
			map[string]any{"spec": map[string]any{}}, nil,
			[]string{"spec: Forbidden: m"}},
		{"reason required", root(obj(nil, apiextv1.ValidationRule{Rule: "false", Message: "m", Reason: ptr(apiextv1.FieldValueErrorReason("FieldValueRequired"))})),
			map[string]any{"spec": map[string]any{}}, nil,
			[]string{"spec: Required value: m"}},
		{"fieldPath", root(obj(map[string]*schema.Structural{"replicas": typ("integer")}, apiextv1.ValidationRule{Rule: "self.replicas < 3", FieldPath: ".replicas"})),
			map[string]any{"spec": map[string]any{"replicas": int64(5)}}, nil,
			[]string{"spec.replicas: Invalid value: failed rule: self.replicas < 3"}},
		{"list items", root(obj(map[string]*schema.Structural{"l": list})),
			map[string]any{"spec": map[string]any{"l": []any{int64(1), int64(0)}}}, nil,
			[]string{"spec.l[1]: Invalid value: 0: failed rule: self > 0"}},
		{"map values", root(obj(map[string]*schema.Structural{"m": mapOf})),
			map[string]any{"spec": map[string]any{"m": map[string]any{"a": "ok", "b": "long"}}}, nil,
			[]string{"spec.m[b]: Invalid value: \"long\": failed rule: self.size() < 3"}},
		{"root sees metadata.name", root(typ("object"), rule("self.metadata.name.startsWith('x')")),
			map[string]any{"metadata": map[string]any{"name": "abc", "labels": map[string]any{"a": "b"}}, "spec": map[string]any{}}, nil,
			[]string{"<nil>: Invalid value: failed rule: self.metadata.name.startsWith('x')"}},
		{"transition rule skipped on create", root(obj(map[string]*schema.Structural{"a": typ("integer", rule("self >= oldSelf"))})),
			map[string]any{"spec": map[string]any{"a": int64(1)}}, nil, nil},
		{"transition rule on update", root(obj(map[string]*schema.Structural{"a": typ("integer", rule("self >= oldSelf"))})),
			map[string]any{"spec": map[string]any{"a": int64(1)}}, map[string]any{"spec": map[string]any{"a": int64(2)}},
			[]string{"spec.a: Invalid value: 1: failed rule: self >= oldSelf"}},
		{"transition rule skipped where old value absent", root(obj(map[string]*schema.Structural{"a": typ("integer", rule("self >= oldSelf"))})),
			map[string]any{"spec": map[string]any{"a": int64(1)}}, map[string]any{"spec": map[string]any{}}, nil},
		{"optionalOldSelf on create", root(obj(map[string]*schema.Structural{"a": typ("integer", apiextv1.ValidationRule{Rule: "!oldSelf.hasValue() && self > 5", OptionalOldSelf: ptr(true)})})),
			map[string]any{"spec": map[string]any{"a": int64(1)}}, nil,
			[]string{"spec.a: Invalid value: 1: failed rule: !oldSelf.hasValue() && self > 5"}},
		{"list-map items correlate by key", root(obj(map[string]*schema.Structural{"l": {Type: "array", XListType: "map", XListMapKeys: []string{"k"},
			Items: obj(map[string]*schema.Structural{"k": typ("string"), "v": typ("integer")}, rule("self.v >= oldSelf.v"))}})),
			map[string]any{"spec": map[string]any{"l": []any{map[string]any{"k": "b", "v": int64(1)}, map[string]any{"k": "a", "v": int64(5)}}}},
			map[string]any{"spec": map[string]any{"l": []any{map[string]any{"k": "a", "v": int64(4)}, map[string]any{"k": "b", "v": int64(2)}}}},
			[]string{"spec.l[0]: Invalid value: failed rule: self.v >= oldSelf.v"}},
		{"number accepts integers", root(obj(map[string]*schema.Structural{"n": typ("number")}, rule("self.n > 1.5"))),
			map[string]any{"spec": map[string]any{"n": int64(2)}}, nil, nil},
		{"number vs int literal", root(obj(map[string]*schema.Structural{"n": typ("number")}, rule("self.n > 2"))),
			map[string]any{"spec": map[string]any{"n": 1.5}}, nil,
			[]string{"spec: Invalid value: failed rule: self.n > 2"}},
		{"missing field", root(obj(map[string]*schema.Structural{"a": typ("string")}, rule("self.a == 'x'"))),
			map[string]any{"spec": map[string]any{}}, nil,
			[]string{"spec: Invalid value: \"object\": no such key: a evaluating rule: self.a == 'x'"}},
		{"has works", root(obj(map[string]*schema.Structural{"a": typ("string")}, rule("!has(self.a) || self.a == 'x'"))),
			map[string]any{"spec": map[string]any{}}, nil, nil},
		{"list library", root(obj(map[string]*schema.Structural{"l": {Type: "array", Items: typ("integer")}}, rule("self.l.isSorted() && self.l.sum() == 6 && self.l.max() == 3 && self.l.indexOf(2) == 1"))),
			map[string]any{"spec": map[string]any{"l": []any{int64(1), int64(2), int64(3)}}}, nil, nil},
		{"list library fails", root(obj(map[string]*schema.Structural{"l": {Type: "array", Items: typ("integer")}}, rule("self.l.isSorted()"))),
			map[string]any{"spec": map[string]any{"l": []any{int64(3), int64(2)}}}, nil,
			[]string{"spec: Invalid value: failed rule: self.l.isSorted()"}},
		{"regex library", root(obj(map[string]*schema.Structural{"s": typ("string")}, rule("self.s.find('[0-9]+') == '123' && self.s.findAll('[a-z]').size() == 2"))),
			map[string]any{"spec": map[string]any{"s": "ab123"}}, nil, nil},
		{"strings ext", root(obj(map[string]*schema.Structural{"s": typ("string")}, rule("self.s.lowerAscii() == 'ab' && self.s.split('').size() == 2"))),
			map[string]any{"spec": map[string]any{"s": "AB"}}, nil, nil},
		{"sets ext", root(obj(map[string]*schema.Structural{"l": {Type: "array", Items: typ("string")}}, rule("sets.contains(self.l, ['a'])"))),
			map[string]any{"spec": map[string]any{"l": []any{"b"}}}, nil,
			[]string{"spec: Invalid value: failed rule: sets.contains(self.l, ['a'])"}},
		{"int-or-string is dyn", root(obj(map[string]*schema.Structural{"p": {XIntOrString: true}}, rule("type(self.p) == string || self.p > 1"))),
			map[string]any{"spec": map[string]any{"p": int64(0)}}, nil,
			[]string{"spec: Invalid value: failed rule: type(self.p) == string || self.p > 1"}},
		{"date-time is a timestamp", root(obj(map[string]*schema.Structural{"t": {Type: "string", Format: "date-time"}}, rule("self.t > timestamp('2020-01-01T00:00:00Z')"))),
			map[string]any{"spec": map[string]any{"t": "2021-01-01T00:00:00Z"}}, nil, nil},
		{"duration", root(obj(map[string]*schema.Structural{"d": {Type: "string", Format: "duration"}}, rule("self.d < duration('1h')"))),
			map[string]any{"spec": map[string]any{"d": "2h"}}, nil,
			[]string{"spec: Invalid value: failed rule: self.d < duration('1h')"}},
		{"escaped property name", root(obj(map[string]*schema.Structural{"foo-bar": typ("integer"), "namespace": typ("string")}, rule("self.foo__dash__bar == 1 && self.__namespace__ == 'n'"))),
			map[string]any{"spec": map[string]any{"foo-bar": int64(1), "namespace": "n"}}, nil, nil},
		{"compile error reported at runtime", root(obj(nil, rule("self.nope"))),
			map[string]any{"spec": map[string]any{}}, nil,
			[]string{"spec: Invalid value: \"object\": rule compile error: compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope\n | ....^"}},
		{"null value skipped", root(&schema.Structural{Type: "string", Nullable: true, XValidations: []apiextv1.ValidationRule{rule("false")}}),
			map[string]any{"spec": nil}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Compile(tc.schema)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			got := errStrings(v.Validate(context.Background(), tc.obj, tc.old))
			if strings.Join(got, "\n--\n") != strings.Join(tc.want, "\n--\n") {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestCompileNoRules(t *testing.T) {
	v, err := Compile(root(typ("object")))
	if v != nil || err != nil {
		t.Fatalf("got %v, %v; want nil, nil", v, err)
	}
	if errs := v.Validate(context.Background(), map[string]any{}, nil); errs != nil {
		t.Fatalf("nil validator returned %v", errs)
	}
}

func TestCostLimitAtRuntime(t *testing.T) {
	s := root(obj(map[string]*schema.Structural{"l": {Type: "array", Items: typ("string")}},
		rule("self.l.all(a, self.l.all(b, self.l.all(c, a.size() + b.size() + c.size() >= 0)))")))
	v, err := Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	l := make([]any, 200)
	for i := range l {
		l[i] = fmt.Sprint(i)
	}
	errs := v.Validate(context.Background(), map[string]any{"spec": map[string]any{"l": l}}, nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "no further validation rules will be run due to call cost exceeds limit for rule") {
		t.Fatalf("got %v", errs)
	}
}

func TestValidateConcurrent(t *testing.T) {
	s := root(obj(map[string]*schema.Structural{"a": typ("integer"), "l": {Type: "array", Items: typ("string", rule("self.size() < 3"))}},
		rule("self.a > 1"), apiextv1.ValidationRule{Rule: "self.a < 10", MessageExpression: "'a is ' + string(self.a)"}))
	v, err := Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				o := map[string]any{"spec": map[string]any{"a": int64(i), "l": []any{"ok", "long"}}}
				errs := v.Validate(context.Background(), o, nil)
				want := 1 // the long list item
				if i <= 1 || i >= 10 {
					want = 2
				}
				if len(errs) != want {
					t.Errorf("a=%d: got %v", i, errs)
					return
				}
			}
		}()
	}
	wg.Wait()
}
