package controlplane

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A patchCase is one PATCH through the whole control plane: the object of
// testdata/patch/<object>.yaml is created under the case's name, patched,
// and the answer compared with what upstream gives: a Status error, or the
// patched object (testdata/patch/<name>.golden.yaml).
type patchCase struct {
	name        string // also names the object and the golden files
	object      string // testdata/patch/<object>.yaml
	missing     bool   // do not create the object first
	subresource string
	patchType   types.PatchType
	body        string
	query       string // URL query, e.g. "fieldValidation=Strict"

	// An error: the code, the reason, the field of one of the causes (if
	// set) and fragments of the message. Zero code means success.
	code    int
	reason  metav1.StatusReason
	field   string
	message []string

	warnings []string // of a success, each in its own Warning header
	// get compares the object read after the patch with
	// <name>.get.golden.yaml, for patches whose answer is not the object
	// (scale) or not what was stored (dry run, status).
	get bool

	// differs, when set, says how kapi's answer is known to differ from
	// upstream's, which the case describes: the case is skipped while it
	// does, and fails once kapi answers as upstream, to drop the note.
	differs string
}

const (
	jsonPatch      = types.JSONPatchType
	mergePatch     = types.MergePatchType
	strategicPatch = types.StrategicMergePatchType
)

// Upstream answers a JSON patch that does not apply with a bare 422: the
// library's error is not in the Status.
const jsonPatchNotApplied = "the server rejected our request due to an error in our request"

// TestPatch runs every patch test against one control plane: starting
// one is most of the cost of the whole.
func TestPatch(t *testing.T) {
	c := newPatchClient(t, startServer(t, "memory", withoutControllers))
	t.Run("table", func(t *testing.T) { testPatchTable(t, c) })
	t.Run("resourceVersion", func(t *testing.T) { testPatchResourceVersion(t, c) })
	t.Run("concurrent", func(t *testing.T) { testPatchConcurrent(t, c) })
	t.Run("scale managedFields", func(t *testing.T) { testPatchScaleManagedFields(t, c) })
	t.Run("apply", func(t *testing.T) { testApply(t, c) })
}

func testPatchTable(t *testing.T, c *patchClient) {
	groups := []struct {
		name  string
		cases []patchCase
	}{
		{"json", jsonPatchCases},
		{"merge", mergePatchCases},
		{"strategic", strategicPatchCases},
		{"immutable", immutablePatchCases},
		{"subresource", subresourcePatchCases},
		{"options", optionPatchCases},
	}
	seen := map[string]bool{}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.cases {
				name := patchObjectName(tc.name)
				if seen[name] {
					t.Fatalf("two cases named %q: objects and golden files would collide", name)
				}
				seen[name] = true
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					runPatchCase(t, c, tc, name)
				})
			}
		})
	}
}

func runPatchCase(t *testing.T, c *patchClient, tc patchCase, name string) {
	kind := readPatchObject(t, tc.object)["kind"].(string)
	if !tc.missing {
		c.create(t, tc.object, name)
	}
	query, err := url.ParseQuery(tc.query)
	if err != nil {
		t.Fatal(err)
	}
	resp := c.patch(patchObjectPath(t, kind, name, tc.subresource), tc.patchType, tc.body, query)
	var problems []string
	if tc.code != 0 {
		problems = statusProblems(resp, tc.code, tc.reason, tc.field, tc.message...)
	} else if resp.code != http.StatusOK {
		problems = []string{fmt.Sprintf("code = %d, want 200; error: %v", resp.code, resp.err)}
	} else {
		problems = warningProblems(resp.warnings, tc.warnings)
	}
	switch {
	case tc.differs != "" && len(problems) == 0:
		t.Fatalf("kapi now answers as upstream (%s): remove the differs note", tc.differs)
	case tc.differs != "":
		t.Skipf("known difference from upstream: %s: %s", tc.differs, strings.Join(problems, "; "))
	case len(problems) > 0:
		t.Fatal(strings.Join(problems, "\n"))
	case tc.code != 0:
		return
	}
	comparePatchGolden(t, name+".golden.yaml", normalizePatched(t, resp.body))
	if tc.get {
		got := c.get(patchObjectPath(t, kind, name, ""))
		if got.err != nil {
			t.Fatalf("get after patch: %v", got.err)
		}
		comparePatchGolden(t, name+".get.golden.yaml", normalizePatched(t, got.body))
	}
}

var jsonPatchCases = []patchCase{
	{
		name: "deployment add label", object: "deployment", patchType: jsonPatch,
		body: `[{"op":"add","path":"/metadata/labels/tier","value":"front"}]`,
	},
	{
		name: "deployment replace replicas", object: "deployment", patchType: jsonPatch,
		body: `[{"op":"replace","path":"/spec/replicas","value":5}]`,
	},
	{
		name: "deployment remove container", object: "deployment", patchType: jsonPatch,
		body: `[{"op":"remove","path":"/spec/template/spec/containers/1"}]`,
	},
	{
		name: "deployment test then replace", object: "deployment", patchType: jsonPatch,
		body: `[{"op":"test","path":"/spec/replicas","value":2},{"op":"replace","path":"/spec/replicas","value":3}]`,
	},
	{
		name: "deployment failing test", object: "deployment", patchType: jsonPatch,
		body: `[{"op":"test","path":"/spec/replicas","value":7},{"op":"replace","path":"/spec/replicas","value":3}]`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, message: []string{jsonPatchNotApplied},
	},
	{
		name: "configmap move", object: "configmap", patchType: jsonPatch,
		body: `[{"op":"move","from":"/data/color","path":"/data/colour"}]`,
	},
	{
		name: "configmap copy", object: "configmap", patchType: jsonPatch,
		body: `[{"op":"copy","from":"/data/color","path":"/data/shade"},{"op":"copy","from":"/metadata/labels","path":"/metadata/annotations"}]`,
	},
	{
		name: "service add port", object: "service", patchType: jsonPatch,
		body: `[{"op":"add","path":"/spec/ports/-","value":{"name":"metrics","port":9090}}]`,
	},
	{
		name: "pod replace image", object: "pod", patchType: jsonPatch,
		body: `[{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.28"}]`,
	},
	// Malformed patches: what cannot be read is 400, what cannot be applied 422.
	{
		name: "configmap invalid json", object: "configmap", patchType: jsonPatch,
		body: `[{"op":"add",`,
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest, message: []string{"invalid JSON patch"},
	},
	{
		name: "configmap not an array", object: "configmap", patchType: jsonPatch,
		body: `{"op":"add","path":"/data/x","value":"y"}`,
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		message: []string{"error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp"},
	},
	{
		name: "configmap not an array ignore", object: "configmap", patchType: jsonPatch, query: "fieldValidation=Ignore",
		body: `{"op":"add","path":"/data/x","value":"y"}`,
		code: http.StatusBadRequest, reason: metav1.StatusReasonBadRequest,
		message: []string{"json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
	},
	{
		name: "configmap unknown op", object: "configmap", patchType: jsonPatch,
		body: `[{"op":"frob","path":"/data/color","value":"red"}]`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, message: []string{jsonPatchNotApplied},
	},
	{
		name: "deployment replace missing path", object: "deployment", patchType: jsonPatch,
		body: `[{"op":"replace","path":"/spec/nosuch/x","value":1}]`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, message: []string{jsonPatchNotApplied},
	},
	{
		name: "configmap remove missing key", object: "configmap", patchType: jsonPatch,
		body: `[{"op":"remove","path":"/data/nosuch"}]`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, message: []string{jsonPatchNotApplied},
	},
	{
		name: "configmap op unknown field strict", object: "configmap", patchType: jsonPatch, query: "fieldValidation=Strict",
		body: `[{"op":"replace","path":"/data/color","value":"red","bogus":1}]`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, field: "patch",
		message: []string{`strict decoding error: json patch unknown field "[0].bogus"`},
	},
	{
		name: "configmap op unknown field warn", object: "configmap", patchType: jsonPatch, query: "fieldValidation=Warn",
		body:     `[{"op":"replace","path":"/data/color","value":"red","bogus":1}]`,
		warnings: []string{`json patch unknown field "[0].bogus"`},
	},
	{
		name: "deployment remove required image", object: "deployment", patchType: jsonPatch,
		body: `[{"op":"remove","path":"/spec/template/spec/containers/0/image"}]`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		field: "spec.template.spec.containers[0].image", message: []string{"Required value"},
	},
	{
		name: "pod remove required image", object: "pod", patchType: jsonPatch,
		body: `[{"op":"remove","path":"/spec/containers/1/image"}]`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid,
		field: "spec.containers[1].image", message: []string{"Required value"},
	},
	{
		name: "service remove ports", object: "service", patchType: jsonPatch,
		body: `[{"op":"remove","path":"/spec/ports"}]`,
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, field: "spec.ports",
	},
}
