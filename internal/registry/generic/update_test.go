package generic_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
)

// put replaces ns/name with obj as a PUT does.
func put(s *generic.Store, ns, name string, obj *corev1.ConfigMap, options *metav1.UpdateOptions) (*corev1.ConfigMap, bool, error) {
	out, created, err := s.Update(nsContext(ns), name, rest.DefaultUpdatedObjectInfo(obj), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, options)
	if err != nil {
		return nil, created, err
	}
	return out.(*corev1.ConfigMap), created, nil
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name          string
		unconditional bool
		createOnPut   bool
		// edit turns the stored object into the request body.
		edit        func(cm *corev1.ConfigMap)
		target      string
		wantCode    int32
		wantMessage string
		wantCreated bool
		wantData    string
	}{
		{
			name: "matching resourceVersion", target: "foo", wantData: "new",
			edit: func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"k": "new"} },
		},
		{
			name: "stale resourceVersion", target: "foo",
			edit:     func(cm *corev1.ConfigMap) { cm.ResourceVersion = "1"; cm.Data = map[string]string{"k": "new"} },
			wantCode: 409, wantMessage: `Operation cannot be fulfilled on configmaps "foo": the object has been modified; please apply your changes to the latest version and try again`,
		},
		{
			name: "no resourceVersion, unconditional allowed", unconditional: true, target: "foo", wantData: "new",
			edit: func(cm *corev1.ConfigMap) { cm.ResourceVersion = ""; cm.Data = map[string]string{"k": "new"} },
		},
		{
			name: "no resourceVersion, unconditional refused", target: "foo",
			edit:     func(cm *corev1.ConfigMap) { cm.ResourceVersion = "" },
			wantCode: 422, wantMessage: `configmaps "foo" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`,
		},
		{
			name: "invalid", target: "foo",
			edit:     func(cm *corev1.ConfigMap) { cm.Data = map[string]string{resttest.InvalidKey: "x"} },
			wantCode: 422, wantMessage: `ConfigMap "foo" is invalid: data[invalid]: Invalid value: "x": this key is reserved for tests`,
		},
		{
			name: "create on update allowed", createOnPut: true, target: "bar", wantCreated: true, wantData: "v",
			edit: func(cm *corev1.ConfigMap) { *cm = *newConfigMap("", "bar", map[string]string{"k": "v"}) },
		},
		{
			name: "create on update refused", target: "bar",
			edit:     func(cm *corev1.ConfigMap) { *cm = *newConfigMap("", "bar", map[string]string{"k": "v"}) },
			wantCode: 404, wantMessage: `configmaps "bar" not found`,
		},
		{
			// The body's UID is a precondition, as upstream: a PUT aimed at a
			// deleted-and-recreated object conflicts.
			name: "uid in the body is a precondition", target: "foo",
			edit:     func(cm *corev1.ConfigMap) { cm.UID = "someone-else" },
			wantCode: 409, wantMessage: `Operation cannot be fulfilled on configmaps "foo": Precondition failed: UID in precondition: someone-else, UID in object meta: ...`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, func(_ *generic.Store, strategy *resttest.ConfigMapStrategy) {
				strategy.Unconditional, strategy.CreateOnUpdate = tt.unconditional, tt.createOnPut
			})
			stored := mustCreate(t, s, newConfigMap("ns", "foo", map[string]string{"k": "old"}))
			// A second write moves the resourceVersion past the first.
			stored = mustUpdate(t, s, stored, "old2")
			body := stored.DeepCopy()
			tt.edit(body)
			got, created, err := put(s, "ns", tt.target, body, &metav1.UpdateOptions{})
			wantStatus(t, err, tt.wantCode, tt.wantMessage)
			if err != nil {
				return
			}
			if created != tt.wantCreated || got.Data["k"] != tt.wantData {
				t.Errorf("created, data = %v %v, want %v %v", created, got.Data, tt.wantCreated, tt.wantData)
			}
			if now := mustGet(t, s, "ns", tt.target); now.ResourceVersion != got.ResourceVersion || now.UID != got.UID {
				t.Errorf("stored %s/%s, returned %s/%s", now.UID, now.ResourceVersion, got.UID, got.ResourceVersion)
			}
			if !tt.wantCreated && (got.UID != stored.UID || !got.CreationTimestamp.Equal(&stored.CreationTimestamp)) {
				t.Errorf("uid or creationTimestamp changed: %v", got.ObjectMeta)
			}
		})
	}
}

// mustUpdate sets data k to value on cm and returns the stored result.
func mustUpdate(t *testing.T, s *generic.Store, cm *corev1.ConfigMap, value string) *corev1.ConfigMap {
	t.Helper()
	body := cm.DeepCopy()
	body.Data = map[string]string{"k": value}
	got, _, err := put(s, cm.Namespace, cm.Name, body, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update %s: %v", cm.Name, err)
	}
	return got
}

func TestUpdateDryRun(t *testing.T) {
	s := newStore(t, func(_ *generic.Store, strategy *resttest.ConfigMapStrategy) { strategy.CreateOnUpdate = true })
	stored := mustCreate(t, s, newConfigMap("ns", "foo", map[string]string{"k": "old"}))
	dryRun := &metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}}

	body := stored.DeepCopy()
	body.Data["k"] = "new"
	got, _, err := put(s, "ns", "foo", body, dryRun)
	if err != nil {
		t.Fatal(err)
	}
	if got.Data["k"] != "new" {
		t.Errorf("dry-run result data = %v, want the new data", got.Data)
	}
	if now := mustGet(t, s, "ns", "foo"); now.Data["k"] != "old" || now.ResourceVersion != stored.ResourceVersion {
		t.Errorf("dry run changed the object: %v %s", now.Data, now.ResourceVersion)
	}

	if _, created, err := put(s, "ns", "bar", newConfigMap("", "bar", nil), dryRun); err != nil || !created {
		t.Fatalf("dry-run create on update: created=%v err=%v", created, err)
	}
	wantNotFound(t, s, "ns", "bar")
}

// patchInfo computes the new object from the current one, as a patch
// does, so it sees the fresh object on every retry.
type patchInfo func(current *corev1.ConfigMap) *corev1.ConfigMap

func (p patchInfo) Preconditions() *metav1.Preconditions { return nil }

func (p patchInfo) UpdatedObject(_ context.Context, old runtime.Object) (runtime.Object, error) {
	return p(old.(*corev1.ConfigMap).DeepCopy()), nil
}

func TestUpdateFromCurrentObject(t *testing.T) {
	s := newStore(t, nil)
	mustCreate(t, s, newConfigMap("ns", "foo", map[string]string{"k": "1"}))
	bump := patchInfo(func(cm *corev1.ConfigMap) *corev1.ConfigMap {
		cm.Data["k"] += "+"
		return cm
	})
	out, _, err := s.Update(nsContext("ns"), "foo", bump, nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*corev1.ConfigMap).Data["k"]; got != "1+" {
		t.Errorf("data k = %q, want 1+", got)
	}
}

// preconditioned adds preconditions to an UpdatedObjectInfo.
type preconditioned struct {
	rest.UpdatedObjectInfo
	p *metav1.Preconditions
}

func (p preconditioned) Preconditions() *metav1.Preconditions { return p.p }

func TestUpdatePreconditions(t *testing.T) {
	s := newStore(t, nil)
	stored := mustCreate(t, s, newConfigMap("ns", "foo", nil))
	otherUID := types.UID("someone-else")
	staleRV := "1"
	tests := []struct {
		name        string
		p           *metav1.Preconditions
		wantCode    int32
		wantMessage string
	}{
		{name: "matching uid", p: &metav1.Preconditions{UID: &stored.UID}},
		{
			name: "other uid", p: &metav1.Preconditions{UID: &otherUID}, wantCode: 409,
			wantMessage: `Operation cannot be fulfilled on configmaps "foo": Precondition failed: UID in precondition: someone-else, UID in object meta: ` + string(stored.UID),
		},
		{
			name: "stale resourceVersion", p: &metav1.Preconditions{ResourceVersion: &staleRV}, wantCode: 409,
			wantMessage: `Operation cannot be fulfilled on configmaps "foo": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ` + stored.ResourceVersion,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := preconditioned{rest.DefaultUpdatedObjectInfo(stored.DeepCopy()), tt.p}
			_, _, err := s.Update(nsContext("ns"), "foo", info, nil, nil, false, &metav1.UpdateOptions{})
			wantStatus(t, err, tt.wantCode, tt.wantMessage)
		})
	}
}
