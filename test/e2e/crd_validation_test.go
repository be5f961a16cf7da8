package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// gizmoCRD has one field per kind of schema check, and CEL rules with and
// without message, with a messageExpression and a transition rule.
const gizmoCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            x-kubernetes-validations:
            - rule: "!has(self.min) || !has(self.max) || self.min <= self.max"
              message: min must not exceed max
            properties:
              size: {type: integer, minimum: 1, maximum: 10}
              color: {type: string, enum: [red, blue]}
              name: {type: string, pattern: '^[a-z]+$', maxLength: 5}
              tags:
                type: array
                maxItems: 2
                items: {type: string}
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
              min: {type: integer}
              max: {type: integer}
              mode:
                type: string
                x-kubernetes-validations:
                - rule: "self != 'off'"
              replicas:
                type: integer
                x-kubernetes-validations:
                - rule: "self % 2 == 0"
                  messageExpression: "self > 100 ? 'replicas must be even and at most 100' : 'replicas must be even'"
              id:
                type: string
                x-kubernetes-validations:
                - rule: "self == oldSelf"
                  message: Value is immutable
`

// gizmo is a Gizmo manifest named name with the YAML flow mapping spec.
func gizmo(name, spec string) string {
	return "apiVersion: example.com/v1\nkind: Gizmo\nmetadata: {name: " + name + "}\nspec: " + spec + "\n"
}

// gizmoObject parses a gizmo manifest for client-go.
func gizmoObject(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// TestCRDValidation sends invalid Gizmos through client-go and kubectl:
// each is refused with 422 and upstream's field path and message.
func TestCRDValidation(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	applyCRD(t, k, gizmoCRD, "gizmos.example.com")
	gizmos := dynamicFor(t, k, nil).Resource(gvr("example.com", "v1", "gizmos")).Namespace("default")
	r := kubectlRunner{t, k}

	// Errors of these types stop upstream before the CEL rules run, and it
	// says so in a second error.
	const notChecked = "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"
	for _, tc := range []struct {
		name, spec string
		field, msg string // the cause's field and its message
		blocking   bool   // the error keeps CEL rules from running
	}{
		{"type", `{size: "big"}`, "spec.size", `spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`, true},
		{"enum", `{size: 1, color: green}`, "spec.color", `spec.color: Unsupported value: "green": supported values: "red", "blue"`, true},
		{"pattern", `{size: 1, name: ABC}`, "spec.name", `spec.name: Invalid value: "ABC": spec.name in body should match '^[a-z]+$'`, false},
		{"minimum", `{size: 0}`, "spec.size", `spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1`, false},
		{"maximum", `{size: 11}`, "spec.size", `spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`, false},
		{"maxlength", `{size: 1, name: abcdef}`, "spec.name", `spec.name: Too long: may not be more than 5 bytes`, true},
		{"required", `{color: red}`, "spec.size", `spec.size: Required value`, true},
		{"maxitems", `{size: 1, tags: [a, b, c]}`, "spec.tags", `spec.tags: Too many: 3: must have at most 2 items`, true},
		{"cel-message", `{size: 1, min: 5, max: 1}`, "spec", `spec: Invalid value: min must not exceed max`, false},
		{"cel-rule", `{size: 1, mode: "off"}`, "spec.mode", `spec.mode: Invalid value: "off": failed rule: self != 'off'`, false},
		{"cel-message-expression", `{size: 1, replicas: 3}`, "spec.replicas", `spec.replicas: Invalid value: 3: replicas must be even`, false},
		{"list-map-duplicate", `{size: 1, ports: [{name: a, port: 1}, {name: a, port: 2}]}`, "spec.ports[1]", `spec.ports[1]: Duplicate value: {"name":"a"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			manifest := gizmo("bad-"+tc.name, tc.spec)
			_, err := gizmos.Create(t.Context(), gizmoObject(t, manifest), metav1.CreateOptions{})
			wantMsg := fmt.Sprintf(`Gizmo.example.com "bad-%s" is invalid: %s`, tc.name, tc.msg)
			wantFields := []string{tc.field}
			if tc.blocking {
				wantMsg = fmt.Sprintf(`Gizmo.example.com "bad-%s" is invalid: [%s, %s]`, tc.name, tc.msg, notChecked)
				wantFields = append(wantFields, "<nil>")
			}
			if !apierrors.IsInvalid(err) || err.Error() != wantMsg {
				t.Errorf("client-go create: %v\nwant 422 %s", err, wantMsg)
			}
			if fields := causeFields(err); !slices.Equal(fields, wantFields) {
				t.Errorf("causes name fields %q, want %q", fields, wantFields)
			}
			// kubectl's object has its own name, so that one wrongly
			// accepted create does not hide the other's answer.
			out := kubectlRunner{t, k}.fails(gizmo("kubectl-"+tc.name, tc.spec), "create", "-f", "-")
			mustHave(t, out, fmt.Sprintf(`The Gizmo "kubectl-%s" is invalid`, tc.name), tc.msg)
		})
	}

	// A transition rule runs on update only, against the stored object.
	r.stdin(gizmo("fixed", "{size: 1, id: one}"), "create", "-f", "-")
	r.run("patch", "gizmo", "fixed", "--type=merge", "-p", `{"spec":{"size":2}}`)
	out := r.fails("", "patch", "gizmo", "fixed", "--type=merge", "-p", `{"spec":{"id":"two"}}`)
	mustHave(t, out, `The Gizmo "fixed" is invalid: spec.id: Invalid value: "two": Value is immutable`)
	if got := r.jsonpath("{.spec.id} {.spec.size}", "get", "gizmo", "fixed"); got != "one 2" {
		t.Errorf("after the refused update: %q, want one 2", got)
	}
}

// causeFields lists the fields an API error's causes name.
func causeFields(err error) []string {
	var fields []string
	if st, ok := err.(apierrors.APIStatus); ok && st.Status().Details != nil {
		for _, c := range st.Status().Details.Causes {
			fields = append(fields, c.Field)
		}
	}
	return fields
}

// TestCRDUnknownFields checks the three fieldValidation levels on a field
// the schema does not know: Strict refuses, Warn warns and prunes, Ignore
// prunes silently.
func TestCRDUnknownFields(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	applyCRD(t, k, gizmoCRD, "gizmos.example.com")
	warnings := &warningRecorder{}
	gizmos := dynamicFor(t, k, warnings.install).Resource(gvr("example.com", "v1", "gizmos")).Namespace("default")
	const unknown = `unknown field "spec.junk"`

	_, err := gizmos.Create(t.Context(), gizmoObject(t, gizmo("strict", "{size: 1, junk: 1}")), metav1.CreateOptions{FieldValidation: "Strict"})
	if statusCode(err) != http.StatusBadRequest || !strings.Contains(fmt.Sprint(err), "strict decoding error: "+unknown) {
		t.Errorf("Strict create: code %d %v; want 400 with strict decoding error: %s", statusCode(err), err, unknown)
	}
	for _, tc := range []struct {
		level    string
		warnings []string
	}{
		{"Warn", []string{unknown}},
		{"Ignore", nil},
	} {
		warnings.take()
		name := strings.ToLower(tc.level)
		got, err := gizmos.Create(t.Context(), gizmoObject(t, gizmo(name, "{size: 1, junk: 1}")), metav1.CreateOptions{FieldValidation: tc.level})
		if err != nil {
			t.Errorf("%s create: %v", tc.level, err)
			continue
		}
		if w := warnings.take(); !slices.Equal(w, tc.warnings) {
			t.Errorf("%s create warned %q, want %q", tc.level, w, tc.warnings)
		}
		if _, found, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "junk"); found {
			t.Errorf("%s create kept the unknown field: %v", tc.level, got.Object["spec"])
		}
	}

	// kubectl's default is strict.
	r := kubectlRunner{t, k}
	bad := gizmo("by-kubectl", "{size: 1, junk: 1}")
	mustHave(t, r.fails(bad, "create", "-f", "-"), "strict decoding error: "+unknown)
	mustHave(t, r.fails(bad, "create", "--validate=strict", "-f", "-"), "strict decoding error: "+unknown)
	mustHave(t, r.stdin(bad, "create", "--validate=warn", "-f", "-"), "Warning: "+unknown, "gizmo.example.com/by-kubectl created")
	if got := r.jsonpath("{.spec}", "get", "gizmo", "by-kubectl"); got != `{"size":1}` {
		t.Errorf("stored spec after --validate=warn: %s, want the unknown field pruned", got)
	}
}

// brokenRuleCRD has a CEL rule naming a field the schema lacks.
const brokenRuleCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: brokens.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: brokens, singular: broken, kind: Broken}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.nope > 0"
            properties:
              size:
                type: integer
                x-kubernetes-validations:
                # string() of an integer has no size bound, so upstream
                # refuses this message (kubernetes/kubernetes#124234).
                - rule: "self >= 0"
                  messageExpression: "'size must not be negative, got ' + string(self)"
`

// TestCRDInvalidCELRule checks that a CRD whose rule does not compile is
// refused when it is created.
func TestCRDInvalidCELRule(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	out := kubectlRunner{t, k}.fails(brokenRuleCRD, "create", "-f", "-")
	mustHave(t, out,
		`The CustomResourceDefinition "brokens.example.com" is invalid`,
		// v1 CRDs whose versions share one schema are validated as
		// spec.validation, as upstream hoists the schema.
		"spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ",
		"compilation failed: ERROR: <input>:1:",
		"undefined field 'nope'",
		"spec.validation.openAPIV3Schema.properties[spec].properties[size].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x")
	if _, err := k.Kubectl(t, "get", "crd", "brokens.example.com"); err == nil {
		t.Error("the CRD with a broken rule was stored")
	}
}
