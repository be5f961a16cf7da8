package e2e

import (
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wg], categories: [all]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Color, type: string, jsonPath: .spec.color}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1}
              color: {type: string, enum: [red, blue], default: red}
          status:
            type: object
            properties:
              ready: {type: boolean}
`

// TestKubectlCustomResources applies a CRD, waits for it, and uses its
// resource the way an operator author does: create, get with printer
// columns, category all, invalid objects, pruning, defaults, status, and
// deletion of the CRD with its instances.
func TestKubectlCustomResources(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}

	mustHave(t, r.stdin(widgetCRD, "apply", "-f", "-"), "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created")
	r.run("wait", "--for", "condition=established", "--timeout=30s", "crd/widgets.example.com")
	mustHave(t, r.jsonpath("{.status.acceptedNames.kind} {.status.storedVersions}", "get", "crd", "widgets.example.com"), "Widget", "v1")

	mustHave(t, r.stdin("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {size: 3, junk: 1}\n", "create", "--validate=false", "-f", "-"), "widget.example.com/w1 created")
	got := r.jsonpath("{.spec.size} {.spec.color} {.spec.junk}", "get", "widget", "w1")
	if strings.TrimSpace(got) != "3 red" {
		t.Errorf("stored widget spec = %q, want size 3, the default color and no unknown field", got)
	}
	mustHave(t, r.run("get", "widgets"), "NAME", "SIZE", "COLOR", "AGE", "w1", "3", "red")
	mustHave(t, r.run("get", "wg"), "w1")
	mustHave(t, r.run("get", "all"), "widget.example.com/w1")

	out := r.fails("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: bad}\nspec: {size: 0, color: green}\n", "create", "-f", "-")
	mustHave(t, out, `The Widget "bad" is invalid`, "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1", `spec.color: Unsupported value: "green": supported values: "red", "blue"`)
	mustHave(t, r.fails("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: bad2}\nspec: {color: blue}\n", "create", "-f", "-"), "spec.size: Required value")

	// Status is its own subresource: a main update does not change it.
	r.run("patch", "widget", "w1", "--subresource=status", "--type=merge", "-p", `{"status":{"ready":true}}`)
	r.run("patch", "widget", "w1", "--type=merge", "-p", `{"spec":{"size":4},"status":{"ready":false}}`)
	if got := r.jsonpath("{.spec.size} {.status.ready} {.metadata.generation}", "get", "widget", "w1"); got != "4 true 2" {
		t.Errorf("after status and spec patches: %q, want 4 true 2", got)
	}

	// Deleting the CRD deletes its instances first (the cleanup finalizer),
	// then its endpoints.
	r.run("delete", "crd", "widgets.example.com")
	mustHave(t, r.fails("", "get", "crd", "widgets.example.com"), "NotFound")
	mustHave(t, r.fails("", "get", "--raw", "/apis/example.com/v1/namespaces/default/widgets"), "NotFound")
	r.stdin(widgetCRD, "apply", "-f", "-")
	r.run("wait", "--for", "condition=established", "--timeout=30s", "crd/widgets.example.com")
	if got := r.run("get", "--raw", "/apis/example.com/v1/namespaces/default/widgets"); !strings.Contains(got, `"items":[]`) {
		t.Errorf("widgets survived the deletion of their CRD: %s", got)
	}
}
