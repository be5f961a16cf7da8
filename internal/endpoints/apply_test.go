package endpoints_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// deploymentYAML is an applied configuration of deployment d with
// replicas and containers given as "name=image".
func deploymentYAML(replicas int, containers ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  replicas: %d
  selector:
    matchLabels:
      app: d
  template:
    metadata:
      labels:
        app: d
    spec:
      containers:
`, replicas)
	for _, c := range containers {
		name, image, _ := strings.Cut(c, "=")
		fmt.Fprintf(&b, "      - name: %s\n        image: %s\n", name, image)
	}
	return b.String()
}

// replicasYAML applies only spec.replicas (and, with extra, more YAML
// under the top level).
func replicasYAML(replicas int, extra string) string {
	return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: %d\n%s", replicas, extra)
}

func applyReq(path, query, body string) applyRequest {
	return applyRequest{method: "PATCH", path: path + "?" + query, contentType: applyType, body: body}
}

func createReq(query, body string) applyRequest {
	return applyRequest{method: "POST", path: deploymentsPath + "?" + query, contentType: "application/yaml", body: body}
}

func patchReq(path, query, contentType, body string) applyRequest {
	return applyRequest{method: "PATCH", path: path + "?" + query, contentType: contentType, body: body}
}

// applyStep is one request of a case and what must come back: the code,
// substrings of the Status message for errors, of a Warning header.
type applyStep struct {
	req         applyRequest
	wantCode    int
	wantMessage []string
	wantWarning string
	// wantCause is the field of the first Status cause.
	wantCause string
}

type applyCase struct {
	name  string
	steps []applyStep
	check func(t *testing.T, env *applyEnv)
}

var (
	imagePath    = []string{"f:spec", "f:template", "f:spec", "f:containers", `k:{"name":"app"}`, "f:image"}
	replicasPath = []string{"f:spec", "f:replicas"}
)

func TestApply(t *testing.T) {
	runApplyCases(t, []applyCase{
		{
			name: "conflicts name the field and the manager; force takes the field",
			steps: []applyStep{
				{req: createReq("fieldManager=creator", deploymentYAML(1, "app=nginx:1")), wantCode: http.StatusCreated},
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(2, "app=nginx:2")), wantCode: http.StatusConflict,
					wantMessage: []string{`Apply failed with 2 conflicts: conflicts with "creator" using apps/v1:`, "\n- .spec.replicas", `.spec.template.spec.containers[name="app"].image`}},
				{req: applyReq(dPath, "fieldManager=A&force=true", deploymentYAML(2, "app=nginx:2")), wantCode: http.StatusOK},
				{req: applyReq(dPath, "fieldManager=B", replicasYAML(3, "")), wantCode: http.StatusConflict,
					wantMessage: []string{`Apply failed with 1 conflict: conflict with "A": .spec.replicas`}, wantCause: ".spec.replicas"},
				{req: applyReq(dPath, "fieldManager=B&force=true", replicasYAML(3, "")), wantCode: http.StatusOK},
			},
			check: func(t *testing.T, env *applyEnv) {
				d := env.get(t, dPath)
				if *d.Spec.Replicas != 3 || d.Spec.Template.Spec.Containers[0].Image != "nginx:2" {
					t.Errorf("replicas %d image %s, want 3 nginx:2", *d.Spec.Replicas, d.Spec.Template.Spec.Containers[0].Image)
				}
				checkEntries(t, d, []wantEntry{
					{manager: "creator", operation: metav1.ManagedFieldsOperationUpdate, notOwns: [][]string{replicasPath, imagePath}},
					{manager: "A", operation: metav1.ManagedFieldsOperationApply, owns: [][]string{imagePath}, notOwns: [][]string{replicasPath}},
					{manager: "B", operation: metav1.ManagedFieldsOperationApply, owns: [][]string{replicasPath}, notOwns: [][]string{imagePath}},
				})
			},
		},
		{
			name: "an update takes ownership from the applier",
			steps: []applyStep{
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(2, "app=nginx:1")), wantCode: http.StatusCreated},
				{req: applyRequest{method: "PUT", path: dPath + "?fieldManager=C", contentType: "application/yaml", body: deploymentYAML(2, "app=nginx:3")}, wantCode: http.StatusOK},
			},
			check: func(t *testing.T, env *applyEnv) {
				checkEntries(t, env.get(t, dPath), []wantEntry{
					{manager: "A", operation: metav1.ManagedFieldsOperationApply, owns: [][]string{replicasPath}, notOwns: [][]string{imagePath}},
					{manager: "C", operation: metav1.ManagedFieldsOperationUpdate, owns: [][]string{imagePath}, notOwns: [][]string{replicasPath}},
				})
			},
		},
		{
			name: "a strategic merge patch takes ownership from the applier",
			steps: []applyStep{
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(2, "app=nginx:1")), wantCode: http.StatusCreated},
				{req: patchReq(dPath, "fieldManager=C", "application/strategic-merge-patch+json",
					`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:3"}]}}}}`), wantCode: http.StatusOK},
			},
			check: func(t *testing.T, env *applyEnv) {
				checkEntries(t, env.get(t, dPath), []wantEntry{
					{manager: "A", operation: metav1.ManagedFieldsOperationApply, owns: [][]string{replicasPath}, notOwns: [][]string{imagePath}},
					{manager: "C", operation: metav1.ManagedFieldsOperationUpdate, owns: [][]string{imagePath}},
				})
			},
		},
		{
			name: "the owner removes a list item by applying without it",
			steps: []applyStep{
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(1, "app=nginx:1", "sidecar=busybox:1")), wantCode: http.StatusCreated},
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(1, "app=nginx:1")), wantCode: http.StatusOK},
			},
			check: func(t *testing.T, env *applyEnv) {
				var names []string
				for _, c := range env.get(t, dPath).Spec.Template.Spec.Containers {
					names = append(names, c.Name)
				}
				if !slices.Equal(names, []string{"app"}) {
					t.Errorf("containers %v, want [app]", names)
				}
			},
		},
		{
			name: "apply creates a missing object, owned by the applier alone; status it sets is not its",
			steps: []applyStep{
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(1, "app=nginx:1")+"status:\n  observedGeneration: 7\n"), wantCode: http.StatusCreated},
			},
			check: func(t *testing.T, env *applyEnv) {
				d := env.get(t, dPath)
				if d.Status.ObservedGeneration != 0 {
					t.Errorf("status.observedGeneration %d, want 0: an apply of the main resource ignores status", d.Status.ObservedGeneration)
				}
				checkEntries(t, d, []wantEntry{
					{manager: "A", operation: metav1.ManagedFieldsOperationApply, owns: [][]string{replicasPath, imagePath}, notOwns: [][]string{{"f:status"}}},
				})
			},
		},
		{
			name: "status writes record the subresource and own no spec",
			steps: []applyStep{
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(1, "app=nginx:1")), wantCode: http.StatusCreated},
				{req: applyReq(dStatusPath, "fieldManager=S", replicasYAML(9, "status:\n  observedGeneration: 1\n")), wantCode: http.StatusOK},
				{req: patchReq(dStatusPath, "fieldManager=P", "application/merge-patch+json", `{"status":{"replicas":1}}`), wantCode: http.StatusOK},
			},
			check: func(t *testing.T, env *applyEnv) {
				d := env.get(t, dPath)
				if *d.Spec.Replicas != 1 || d.Status.ObservedGeneration != 1 || d.Status.Replicas != 1 {
					t.Errorf("spec.replicas %d status %+v, want spec kept and status written", *d.Spec.Replicas, d.Status)
				}
				checkEntries(t, d, []wantEntry{
					{manager: "A", operation: metav1.ManagedFieldsOperationApply, owns: [][]string{replicasPath}},
					{manager: "S", subresource: "status", operation: metav1.ManagedFieldsOperationApply,
						owns: [][]string{{"f:status", "f:observedGeneration"}}, notOwns: [][]string{replicasPath}},
					{manager: "P", subresource: "status", operation: metav1.ManagedFieldsOperationUpdate, owns: [][]string{{"f:status", "f:replicas"}}},
				})
			},
		},
		{
			name: "scale writes own the parent's replicas",
			steps: []applyStep{
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(2, "app=nginx:1")), wantCode: http.StatusCreated},
				{req: patchReq(dPath+"/scale", "fieldManager=S", "application/merge-patch+json", `{"spec":{"replicas":5}}`), wantCode: http.StatusOK},
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(2, "app=nginx:1")), wantCode: http.StatusConflict,
					wantMessage: []string{`Apply failed with 1 conflict: conflict with "S" with subresource "scale" using apps/v1: .spec.replicas`}},
			},
			check: func(t *testing.T, env *applyEnv) {
				d := env.get(t, dPath)
				if *d.Spec.Replicas != 5 {
					t.Errorf("replicas %d, want 5", *d.Spec.Replicas)
				}
				checkEntries(t, d, []wantEntry{
					{manager: "A", operation: metav1.ManagedFieldsOperationApply, owns: [][]string{imagePath}, notOwns: [][]string{replicasPath}},
					{manager: "S", subresource: "scale", operation: metav1.ManagedFieldsOperationUpdate, owns: [][]string{replicasPath}, timeless: true},
				})
			},
		},
		{
			name: "the manager of other writes is the User-Agent's product",
			steps: []applyStep{
				{req: applyRequest{method: "POST", path: deploymentsPath, contentType: "application/yaml", body: deploymentYAML(1, "app=nginx:1"),
					userAgent: "kubectl-create/v1.37.2 (linux/amd64) kubernetes/0000000"}, wantCode: http.StatusCreated},
				{req: applyRequest{method: "PATCH", path: dPath, contentType: "application/merge-patch+json", body: `{"spec":{"replicas":4}}`,
					userAgent: "Go-http-client/2.0"}, wantCode: http.StatusOK},
			},
			check: func(t *testing.T, env *applyEnv) {
				checkEntries(t, env.get(t, dPath), []wantEntry{
					{manager: "kubectl-create", operation: metav1.ManagedFieldsOperationUpdate, owns: [][]string{imagePath}, notOwns: [][]string{replicasPath}},
					{manager: "Go-http-client", operation: metav1.ManagedFieldsOperationUpdate, owns: [][]string{replicasPath}},
				})
			},
		},
		{
			name: "managedFields: [] in an update clears them",
			steps: []applyStep{
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(1, "app=nginx:1")), wantCode: http.StatusCreated},
				{req: patchReq(dPath, "fieldManager=C", "application/merge-patch+json", `{"metadata":{"managedFields":[]}}`), wantCode: http.StatusOK},
			},
			check: func(t *testing.T, env *applyEnv) { checkEntries(t, env.get(t, dPath), nil) },
		},
		{
			name: "one empty managedFields entry clears them too",
			steps: []applyStep{
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(1, "app=nginx:1")), wantCode: http.StatusCreated},
				{req: patchReq(dPath, "fieldManager=C", "application/merge-patch+json", `{"metadata":{"managedFields":[{}]}}`), wantCode: http.StatusOK},
			},
			check: func(t *testing.T, env *applyEnv) { checkEntries(t, env.get(t, dPath), nil) },
		},
		{
			name: "dry-run apply stores nothing",
			steps: []applyStep{
				{req: applyReq(dPath, "fieldManager=A&dryRun=All", deploymentYAML(1, "app=nginx:1")), wantCode: http.StatusCreated},
			},
			check: func(t *testing.T, env *applyEnv) {
				if d := env.get(t, dPath); d != nil {
					t.Errorf("dry-run apply stored %+v", d.ObjectMeta)
				}
			},
		},
		{
			name: "dry-run apply over an object changes nothing",
			steps: []applyStep{
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(1, "app=nginx:1")), wantCode: http.StatusCreated},
				{req: applyReq(dPath, "fieldManager=A&dryRun=All", deploymentYAML(5, "app=nginx:1")), wantCode: http.StatusOK},
			},
			check: func(t *testing.T, env *applyEnv) {
				if d := env.get(t, dPath); *d.Spec.Replicas != 1 {
					t.Errorf("replicas %d after a dry run, want 1", *d.Spec.Replicas)
				}
			},
		},
		{
			name:  "apply needs a field manager",
			steps: []applyStep{{req: applyReq(dPath, "", deploymentYAML(1, "app=nginx:1")), wantCode: http.StatusUnprocessableEntity, wantMessage: []string{"fieldManager: Required value: is required for apply patch"}}},
		},
		{
			name: "apply of another kind",
			steps: []applyStep{{req: applyReq(dPath, "fieldManager=A", strings.Replace(deploymentYAML(1, "app=nginx:1"), "kind: Deployment", "kind: ReplicaSet", 1)),
				wantCode: http.StatusBadRequest, wantMessage: []string{"invalid object type: apps/v1, Kind=ReplicaSet"}}},
		},
		{
			name: "apply of another version",
			steps: []applyStep{{req: applyReq(dPath, "fieldManager=A", strings.Replace(deploymentYAML(1, "app=nginx:1"), "apps/v1", "apps/v1beta2", 1)),
				wantCode: http.StatusBadRequest, wantMessage: []string{"invalid object type: apps/v1beta2, Kind=Deployment"}}},
		},
		{
			name: "managedFields in an applied configuration",
			steps: []applyStep{{req: applyReq(dPath, "fieldManager=A", strings.Replace(deploymentYAML(1, "app=nginx:1"), "  name: d\n", "  name: d\n  managedFields: []\n", 1)),
				wantCode: http.StatusBadRequest, wantMessage: []string{"metadata.managedFields must be nil"}}},
		},
		{
			name: "a field the schema does not know",
			steps: []applyStep{{req: applyReq(dPath, "fieldManager=A", replicasYAML(1, "  bogus: 1\n")),
				wantCode: http.StatusInternalServerError, wantMessage: []string{".spec.bogus: field not declared in schema"}}},
		},
		{
			name: "duplicate fields under Strict",
			steps: []applyStep{{req: applyReq(dPath, "fieldManager=A&fieldValidation=Strict", deploymentYAML(1, "app=nginx:1")+"  replicas: 2\n"),
				wantCode: http.StatusBadRequest, wantMessage: []string{"error strict decoding patch:", `key "replicas" already set in map`}}},
			check: func(t *testing.T, env *applyEnv) {
				if env.get(t, dPath) != nil {
					t.Error("a refused apply created the object")
				}
			},
		},
		{
			name: "duplicate fields under Warn",
			steps: []applyStep{{req: applyReq(dPath, "fieldManager=A&fieldValidation=Warn", deploymentYAML(1, "app=nginx:1")+"  replicas: 2\n"),
				wantCode: http.StatusCreated, wantWarning: `key \"replicas\" already set in map`}},
		},
		{
			name: "a resourceVersion in the applied configuration must be the stored one",
			steps: []applyStep{
				{req: applyReq(dPath, "fieldManager=A", deploymentYAML(1, "app=nginx:1")), wantCode: http.StatusCreated},
				{req: applyReq(dPath, "fieldManager=A", strings.Replace(deploymentYAML(2, "app=nginx:1"), "  name: d\n", "  name: d\n  resourceVersion: \"999999\"\n", 1)),
					wantCode: http.StatusConflict, wantMessage: []string{"the object has been modified"}},
			},
		},
		{
			name: "a uid in an applied configuration of a missing object",
			steps: []applyStep{{req: applyReq(dPath, "fieldManager=A", strings.Replace(deploymentYAML(1, "app=nginx:1"), "  name: d\n", "  name: d\n  uid: u1\n", 1)),
				wantCode: http.StatusConflict, wantMessage: []string{"uid mismatch: the provided object specified uid u1, and no existing object was found"}}},
		},
		{
			name:  "apply to the status of a missing object",
			steps: []applyStep{{req: applyReq(dStatusPath, "fieldManager=S", replicasYAML(1, "")), wantCode: http.StatusNotFound}},
		},
		{
			name: "unsupported patch types list apply",
			steps: []applyStep{{req: patchReq(dPath, "", "application/apply-patch+cbor", ""), wantCode: http.StatusUnsupportedMediaType,
				wantMessage: []string{"accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml"}}},
		},
		{
			name:  "a body that is not YAML",
			steps: []applyStep{{req: applyReq(dPath, "fieldManager=A", "a: [b"), wantCode: http.StatusBadRequest, wantMessage: []string{"error encoding patch"}}},
		},
	})
}

func runApplyCases(t *testing.T, cases []applyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := newApplyEnv(t)
			for i, step := range tc.steps {
				rec := env.do(t, step.req)
				if rec.Code != step.wantCode {
					t.Fatalf("step %d: %s %s: code %d, want %d; body %s", i, step.req.method, step.req.path, rec.Code, step.wantCode, rec.Body)
				}
				if len(step.wantMessage) > 0 || step.wantCause != "" {
					s := status(t, rec)
					for _, want := range step.wantMessage {
						if !strings.Contains(s.Message, want) {
							t.Errorf("step %d: message %q does not contain %q", i, s.Message, want)
						}
					}
					if step.wantCause != "" && (s.Details == nil || len(s.Details.Causes) == 0 || s.Details.Causes[0].Field != step.wantCause) {
						t.Errorf("step %d: details %+v, want a cause on %s", i, s.Details, step.wantCause)
					}
				}
				if w := strings.Join(rec.Header().Values("Warning"), "\n"); !strings.Contains(w, step.wantWarning) {
					t.Errorf("step %d: warnings %q do not contain %q", i, w, step.wantWarning)
				}
			}
			if tc.check != nil {
				tc.check(t, env)
			}
		})
	}
}
