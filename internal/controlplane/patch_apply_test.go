package controlplane

import (
	"net/http"
	"net/url"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const applyPatch = types.ApplyYAMLPatchType

// An applyStep is one request of a server-side apply story; the steps of
// testApply run in order against one server, each seeing what the ones
// before it left.
type applyStep struct {
	name        string // also the golden file stem: <name>.golden.yaml
	kind        string
	object      string
	subresource string
	patchType   types.PatchType // apply unless set
	query       string
	body        string

	code    int // 200 or 201 compare the answer with the golden file
	reason  metav1.StatusReason
	field   string
	message []string
	get     bool // also compare the object read after with <name>.get.golden.yaml
}

var applySteps = []applyStep{
	{
		name: "apply creates", kind: "ConfigMap", object: "applied", query: "fieldManager=alice",
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  color: blue\n  size: large\n",
		code: http.StatusCreated,
	},
	{
		// alice no longer applies size: it goes, as she alone owned it.
		name: "apply again changes", kind: "ConfigMap", object: "applied", query: "fieldManager=alice",
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  color: green\n",
		code: http.StatusOK,
	},
	{
		name: "apply second manager conflicts", kind: "ConfigMap", object: "applied", query: "fieldManager=bob",
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  color: red\n",
		code: http.StatusConflict, reason: metav1.StatusReasonConflict, field: ".data.color",
		message: []string{`Apply failed with 1 conflict: conflict with "alice": .data.color`},
	},
	{
		// The same value is no conflict: both managers own the field.
		name: "apply second manager shares", kind: "ConfigMap", object: "applied", query: "fieldManager=bob",
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  color: green\n",
		code: http.StatusOK,
	},
	{
		name: "apply conflict with two", kind: "ConfigMap", object: "applied", query: "fieldManager=carol",
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  color: red\n",
		code: http.StatusConflict, reason: metav1.StatusReasonConflict, field: ".data.color",
		message: []string{"Apply failed with 2 conflicts: conflicts with \"alice\":\n- .data.color\nconflicts with \"bob\":\n- .data.color"},
	},
	{
		name: "apply force wins", kind: "ConfigMap", object: "applied", query: "fieldManager=carol&force=true",
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  color: red\n",
		code: http.StatusOK,
	},
	{
		name: "apply update by patch", kind: "ConfigMap", object: "applied", patchType: mergePatch, query: "fieldManager=patcher",
		body: `{"data":{"shape":"round"}}`,
		code: http.StatusOK,
	},
	{
		// An updater is named with the version it wrote (not its time:
		// managers are identified without it).
		name: "apply conflicts with updater", kind: "ConfigMap", object: "applied", query: "fieldManager=alice",
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  shape: square\n",
		code: http.StatusConflict, reason: metav1.StatusReasonConflict, field: ".data.shape",
		message: []string{`Apply failed with 1 conflict: conflict with "patcher" using v1: .data.shape`},
	},
	{
		name: "apply without field manager", kind: "ConfigMap", object: "applied",
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  color: green\n",
		code: http.StatusUnprocessableEntity, reason: metav1.StatusReasonInvalid, field: "fieldManager",
		message: []string{"fieldManager: Required value: is required for apply patch"},
	},
	{
		name: "apply dry run", kind: "ConfigMap", object: "applied", query: "fieldManager=carol&dryRun=All",
		body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  color: yellow\n",
		code: http.StatusOK, get: true,
	},
	{
		name: "apply deployment creates", kind: "Deployment", object: "applied", query: "fieldManager=alice",
		body: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: applied
spec:
  replicas: 1
  selector:
    matchLabels: {app: applied}
  template:
    metadata:
      labels: {app: applied}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.27"}
      - {name: sidecar, image: "busybox:1.36"}
`,
		code: http.StatusCreated,
	},
	{
		// The container alice stops applying is removed.
		name: "apply deployment removes container", kind: "Deployment", object: "applied", query: "fieldManager=alice",
		body: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: applied
spec:
  replicas: 1
  selector:
    matchLabels: {app: applied}
  template:
    metadata:
      labels: {app: applied}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.28"}
`,
		code: http.StatusOK,
	},
	{
		// Apply to status owns status fields only; the spec stays.
		name: "apply deployment status", kind: "Deployment", object: "applied", subresource: "status",
		query: "fieldManager=status-writer",
		body:  "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: applied\nstatus:\n  replicas: 1\n",
		code:  http.StatusOK, get: true,
	},
}

// testApply runs a server-side apply story: create, change, conflicts
// between managers (with the upstream message naming field and manager),
// force, and the removal of what a manager stops applying.
func testApply(t *testing.T, c *patchClient) {
	for i, step := range applySteps {
		patchType := step.patchType
		if patchType == "" {
			patchType = applyPatch
		}
		query, err := url.ParseQuery(step.query)
		if err != nil {
			t.Fatal(err)
		}
		resp := c.patch(patchObjectPath(t, step.kind, step.object, step.subresource), patchType, step.body, query)
		if i == 0 && resp.code == http.StatusUnsupportedMediaType {
			t.Skip("apply not served yet")
		}
		ok := t.Run(step.name, func(t *testing.T) {
			if step.code != http.StatusOK && step.code != http.StatusCreated {
				wantStatusError(t, resp, step.code, step.reason, step.field, step.message...)
				return
			}
			if resp.code != step.code {
				t.Fatalf("code = %d, want %d; error: %v", resp.code, step.code, resp.err)
			}
			name := patchObjectName(step.name)
			comparePatchGolden(t, name+".golden.yaml", normalizePatched(t, resp.body))
			if step.get {
				got := c.get(patchObjectPath(t, step.kind, step.object, ""))
				if got.err != nil {
					t.Fatalf("get after apply: %v", got.err)
				}
				comparePatchGolden(t, name+".get.golden.yaml", normalizePatched(t, got.body))
			}
		})
		if !ok {
			t.FailNow() // the later steps build on this one
		}
	}
}
