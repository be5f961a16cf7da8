package endpoints_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/admission"
)

// TestRepeatedWritesAreNoOps: writes that change nothing but the times
// of managedFields entries store nothing (same resourceVersion); a real
// change stores.
func TestRepeatedWritesAreNoOps(t *testing.T) {
	config := deploymentYAML(2, "app=nginx:1")
	withCPU := func(cpu string) string {
		return strings.Replace(config, "image: nginx:1\n", "image: nginx:1\n        resources:\n          limits:\n            cpu: "+cpu+"\n", 1)
	}
	tests := []struct {
		name          string
		first, second applyRequest
		wantChanged   bool
	}{
		{name: "the same apply", first: applyReq(dPath, "fieldManager=A", config), second: applyReq(dPath, "fieldManager=A", config)},
		{name: "the same apply by another manager", first: applyReq(dPath, "fieldManager=A", config), second: applyReq(dPath, "fieldManager=B", config), wantChanged: true},
		{name: "the same update", first: applyReq(dPath, "fieldManager=A", config),
			second: applyRequest{method: "PUT", path: dPath + "?fieldManager=A", contentType: "application/yaml", body: config}},
		{name: "an empty merge patch", first: applyReq(dPath, "fieldManager=A", config), second: patchReq(dPath, "fieldManager=A", "application/merge-patch+json", `{}`)},
		// The field manager sees a new value; the object is the same.
		{name: "an apply that only respells a quantity", first: applyReq(dPath, "fieldManager=A", withCPU(`"1"`)), second: applyReq(dPath, "fieldManager=A", withCPU("1000m"))},
		{name: "a changed apply", first: applyReq(dPath, "fieldManager=A", config), second: applyReq(dPath, "fieldManager=A", deploymentYAML(3, "app=nginx:1")), wantChanged: true},
	}
	for _, tt := range tests {
		// The bubble's clock lets the second write come a minute later, so
		// new entries' times differ from the stored ones.
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				env := newApplyEnv(t)
				if rec := env.do(t, tt.first); rec.Code != http.StatusCreated {
					t.Fatalf("apply: %d %s", rec.Code, rec.Body)
				}
				before := env.get(t, dPath)
				time.Sleep(time.Minute)
				if rec := env.do(t, tt.second); rec.Code != http.StatusOK {
					t.Fatalf("%d %s", rec.Code, rec.Body)
				}
				after := env.get(t, dPath)
				if changed := after.ResourceVersion != before.ResourceVersion; changed != tt.wantChanged {
					t.Errorf("resourceVersion %s -> %s, want changed=%v; managedFields %+v", before.ResourceVersion, after.ResourceVersion, tt.wantChanged, after.ManagedFields)
				}
			})
		})
	}
}

// TestNoTypeConverterNoManagedFields: without a type converter nothing is
// tracked and apply is not served.
func TestNoTypeConverterNoManagedFields(t *testing.T) {
	env := newApplyEnvWith(t, nil, nil)
	if rec := env.do(t, createReq("fieldManager=A", deploymentYAML(1, "app=nginx:1"))); rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	if d := env.get(t, dPath); len(d.ManagedFields) != 0 {
		t.Errorf("managedFields %+v, want none", d.ManagedFields)
	}
	rec := env.do(t, applyReq(dPath, "fieldManager=A", deploymentYAML(1, "app=nginx:1")))
	want := "accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json"
	if rec.Code != http.StatusUnsupportedMediaType || !strings.HasSuffix(status(t, rec).Message, want) {
		t.Errorf("apply: %d %s, want 415 ending %q", rec.Code, rec.Body, want)
	}
}

// breakingAdmission replaces managedFields with entries that do not
// decode, as an outdated mutating webhook might.
type breakingAdmission struct{}

func (breakingAdmission) Admit(_ context.Context, a *admission.Attributes) error {
	accessor, err := meta.Accessor(a.Object)
	if err != nil {
		return err
	}
	accessor.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "webhook", Operation: "Bogus", FieldsType: "FieldsV9"}})
	return nil
}

func (breakingAdmission) Validate(context.Context, *admission.Attributes) error { return nil }

// TestAdmissionCannotBreakManagedFields: entries mutating admission breaks
// are put back, with upstream's warning, on every kind of write.
func TestAdmissionCannotBreakManagedFields(t *testing.T) {
	tests := []struct {
		name   string
		req    applyRequest
		wantOp metav1.ManagedFieldsOperationType
	}{
		{name: "create", req: createReq("fieldManager=A", deploymentYAML(1, "app=nginx:1")), wantOp: metav1.ManagedFieldsOperationUpdate},
		{name: "apply", req: applyReq(dPath, "fieldManager=A", deploymentYAML(1, "app=nginx:1")), wantOp: metav1.ManagedFieldsOperationApply},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newApplyEnvWith(t, newTestTypeConverter(), breakingAdmission{})
			rec := env.do(t, tt.req)
			if rec.Code != http.StatusCreated {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
			if w := strings.Join(rec.Header().Values("Warning"), "\n"); !strings.Contains(w, ".metadata.managedFields was in an invalid state after admission") {
				t.Errorf("warnings %q, want the invalid managedFields one", w)
			}
			d := &appsv1.Deployment{}
			if err := json.Unmarshal(rec.Body.Bytes(), d); err != nil {
				t.Fatal(err)
			}
			checkEntries(t, d, []wantEntry{{manager: "A", operation: tt.wantOp, owns: [][]string{replicasPath}}})
		})
	}
}
