package server

import (
	"strings"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

const applyCT = "application/apply-patch+yaml"

func TestServerSideApply(t *testing.T) {
	e := newRealEnv(t, envOptions{}, realWidgetCRD(t))
	base := "/apis/example.com/v1/namespaces/ns1/widgets"
	applied := func(size int) string {
		return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":` + string(rune('0'+size)) + `}}`
	}
	steps := []struct {
		name, method, path, body string
		headers                  []string
		code                     int
		contains, lacks          []string
	}{
		{"apply creates", "PATCH", base + "/w1?fieldManager=m1", applied(2), []string{"Content-Type", applyCT}, 201,
			[]string{`"manager":"m1"`, `"operation":"Apply"`, `"f:size":{}`, `"color":"red"`}, nil},
		{"apply again is a no-op", "PATCH", base + "/w1?fieldManager=m1", applied(2), []string{"Content-Type", applyCT}, 200, []string{`"size":2`}, nil},
		{"conflict", "PATCH", base + "/w1?fieldManager=m2", applied(3), []string{"Content-Type", applyCT}, 409,
			[]string{`Apply failed with 1 conflict: conflict with \"m1\": .spec.size`, `"reason":"Conflict"`}, nil},
		{"force", "PATCH", base + "/w1?fieldManager=m2&force=true", applied(3), []string{"Content-Type", applyCT}, 200,
			[]string{`"size":3`, `"manager":"m2"`}, nil},
		{"merge patch is an Update", "PATCH", base + "/w1?fieldManager=m3", `{"spec":{"replicas":2}}`, []string{"Content-Type", "application/merge-patch+json"}, 200,
			[]string{`"manager":"m3","operation":"Update"`, `"f:replicas":{}`}, nil},
		{"status write records its subresource", "PATCH", base + "/w1/status?fieldManager=m4", `{"status":{"replicas":2}}`, []string{"Content-Type", "application/merge-patch+json"}, 200,
			[]string{`"manager":"m4","operation":"Update"`, `"subresource":"status"`}, nil},
		{"status apply owns only status", "PATCH", base + "/w1/status?fieldManager=m5&force=true",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":9},"status":{"replicas":5}}`, []string{"Content-Type", applyCT}, 200,
			[]string{`"replicas":5`, `"size":3`, `"subresource":"status"`}, nil},
		{"main apply ignores status", "PATCH", base + "/w1?fieldManager=m6",
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"status":{"replicas":7}}`, []string{"Content-Type", applyCT}, 200,
			[]string{`"replicas":5`}, []string{`"replicas":7`}},
		{"create records the manager", "POST", base + "?fieldManager=creator", widget("v1", "w2", `{"size":1}`), nil, 201,
			[]string{`"manager":"creator","operation":"Update"`}, nil},
		{"strategic merge refused", "PATCH", base + "/w1", `{}`, []string{"Content-Type", "application/strategic-merge-patch+json"}, 415,
			[]string{"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"}, nil},
		{"apply in another version", "PATCH", "/apis/example.com/v1alpha1/namespaces/ns1/widgets/w3?fieldManager=m1",
			`{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w3"},"spec":{"size":1,"colour":"blue"}}`, []string{"Content-Type", applyCT}, 201,
			[]string{`"apiVersion":"example.com/v1alpha1"`, `"colour":"blue"`, `"apiVersion":"example.com/v1alpha1","fieldsType":"FieldsV1"`}, nil},
	}
	for _, s := range steps {
		code, body := e.do(t, s.method, s.path, s.body, s.headers...)
		if code != s.code {
			t.Fatalf("%s: code %d, want %d: %s", s.name, code, s.code, body)
		}
		for _, c := range s.contains {
			if !strings.Contains(body, c) {
				t.Errorf("%s: body lacks %s: %s", s.name, c, body)
			}
		}
		for _, c := range s.lacks {
			if strings.Contains(body, c) {
				t.Errorf("%s: body has %s: %s", s.name, c, body)
			}
		}
	}
}

// A CRD without a schema (or preserving unknown fields at the root) still
// gets a working field manager.
func TestApplyWithoutSchema(t *testing.T) {
	crd := widgetCRD(apiextv1.NamespaceScoped)
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Schema = nil
	}
	preserve := realWidgetCRD(t)
	preserve.Name, preserve.UID = "gadgets.example.com", "uid-3"
	preserve.Spec.Names = apiextv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"}
	preserve.Status.AcceptedNames = preserve.Spec.Names
	for i := range preserve.Spec.Versions {
		preserve.Spec.Versions[i].Schema = props(t, `{"type":"object","x-kubernetes-preserve-unknown-fields":true}`)
	}
	e := newRealEnv(t, envOptions{}, crd, preserve)
	for _, kind := range []string{"Widget", "Gadget"} {
		path := "/apis/example.com/v1/namespaces/ns1/" + strings.ToLower(kind) + "s/x?fieldManager=m1"
		body := `{"apiVersion":"example.com/v1","kind":"` + kind + `","metadata":{"name":"x"},"spec":{"anything":{"deep":1}}}`
		code, b := e.do(t, "PATCH", path, body, "Content-Type", applyCT)
		if code != 201 || !strings.Contains(b, `"manager":"m1"`) || !strings.Contains(b, `"deep":1`) {
			t.Errorf("%s: apply: %d %s", kind, code, b)
		}
		body = strings.Replace(body, `"deep":1`, `"deep":2`, 1)
		if code, b := e.do(t, "PATCH", strings.Replace(path, "m1", "m2", 1), body, "Content-Type", applyCT); code != 409 {
			t.Errorf("%s: conflicting apply: %d %s", kind, code, b)
		}
	}
}

func TestFieldValidation(t *testing.T) {
	e := newRealEnv(t, envOptions{}, realWidgetCRD(t))
	base := "/apis/example.com/v1/namespaces/ns1/widgets"
	body := func(name string) string {
		return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"` + name + `","foo":1},"spec":{"size":1,"bar":2,"size":1}}`
	}
	tests := []struct {
		name, method, path, body string
		headers                  []string
		code                     int
		contains                 []string
		warnings                 []string
	}{
		{"strict create", "POST", base + "?fieldValidation=Strict", body("s"), nil, 400,
			[]string{`Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: duplicate field \"spec.size\", unknown field \"metadata.foo\", unknown field \"spec.bar\"`}, nil},
		{"warn create", "POST", base + "?fieldValidation=Warn", body("w"), nil, 201, nil,
			[]string{`duplicate field "spec.size"`, `unknown field "metadata.foo"`, `unknown field "spec.bar"`}},
		{"default is warn", "POST", base, body("d"), nil, 201, nil, []string{`unknown field "spec.bar"`}},
		{"ignore create", "POST", base + "?fieldValidation=Ignore", body("i"), nil, 201, nil, nil},
		{"strict merge patch", "PATCH", base + "/w?fieldValidation=Strict", `{"spec":{"baz":1}}`, []string{"Content-Type", "application/merge-patch+json"}, 422,
			[]string{`unknown field \"spec.baz\"`}, nil},
		{"warn json patch", "PATCH", base + "/w?fieldValidation=Warn", `[{"op":"add","path":"/spec/baz","value":1}]`, []string{"Content-Type", "application/json-patch+json"}, 200,
			nil, []string{`unknown field "spec.baz"`}},
		{"strict put", "PUT", base + "/i?fieldValidation=Strict", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"i","resourceVersion":"1"},"spec":{"qux":1}}`, nil, 400,
			[]string{`strict decoding error: unknown field \"spec.qux\"`}, nil},
	}
	for _, tt := range tests {
		code, b, h := e.doH(t, tt.method, tt.path, tt.body, tt.headers...)
		if code != tt.code {
			t.Fatalf("%s: code %d, want %d: %s", tt.name, code, tt.code, b)
		}
		for _, c := range tt.contains {
			if !strings.Contains(b, c) {
				t.Errorf("%s: body lacks %s: %s", tt.name, c, b)
			}
		}
		got := strings.Join(h.Values("Warning"), "\n")
		for _, w := range tt.warnings {
			if !strings.Contains(got, w) {
				t.Errorf("%s: warnings lack %s: %q", tt.name, w, got)
			}
		}
		if len(tt.warnings) == 0 && got != "" {
			t.Errorf("%s: unexpected warnings %q", tt.name, got)
		}
		if code < 300 && (strings.Contains(b, `"bar"`) || strings.Contains(b, `"foo"`) || strings.Contains(b, `"baz"`)) {
			t.Errorf("%s: unknown field stored: %s", tt.name, b)
		}
	}
}
