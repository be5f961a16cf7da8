package devicetaintrule

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	registrytest.Golden(t, scheme, m["devicetaintrules"].(rest.Creater), "testdata", "minimal")
}

func valid() *resourcev1.DeviceTaintRule {
	return &resourcev1.DeviceTaintRule{
		ObjectMeta: metav1.ObjectMeta{Name: "rule", ResourceVersion: "1"},
		Spec: resourcev1.DeviceTaintRuleSpec{
			DeviceSelector: &resourcev1.DeviceTaintSelector{Driver: ptr.To("gpu.example.com"), Pool: ptr.To("node-1"), Device: ptr.To("gpu-0")},
			Taint:          resourcev1.DeviceTaint{Key: "example.com/maintenance", Value: "planned", Effect: resourcev1.DeviceTaintEffectNoSchedule},
		},
	}
}

func describe(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*resourcev1.DeviceTaintRule)
		want   []string
	}{
		{"valid", func(*resourcev1.DeviceTaintRule) {}, nil},
		{"no selector", func(r *resourcev1.DeviceTaintRule) { r.Spec.DeviceSelector = nil }, nil},
		{"bad driver", func(r *resourcev1.DeviceTaintRule) { r.Spec.DeviceSelector.Driver = ptr.To("GPU!") }, []string{"FieldValueInvalid spec.deviceSelector.driver"}},
		{"empty pool", func(r *resourcev1.DeviceTaintRule) { r.Spec.DeviceSelector.Pool = ptr.To("") }, []string{"FieldValueRequired spec.deviceSelector.pool"}},
		{"bad device", func(r *resourcev1.DeviceTaintRule) { r.Spec.DeviceSelector.Device = ptr.To("gpu.0") }, []string{"FieldValueInvalid spec.deviceSelector.device"}},
		// As upstream, the qualified-name check also rejects an empty key.
		{"no key", func(r *resourcev1.DeviceTaintRule) { r.Spec.Taint.Key = "" }, []string{"FieldValueInvalid spec.taint.key", "FieldValueInvalid spec.taint.key"}},
		{"bad value", func(r *resourcev1.DeviceTaintRule) { r.Spec.Taint.Value = "not a value" }, []string{"FieldValueInvalid spec.taint.value"}},
		{"no effect", func(r *resourcev1.DeviceTaintRule) { r.Spec.Taint.Effect = "" }, []string{"FieldValueRequired spec.taint.effect"}},
		{"node effect", func(r *resourcev1.DeviceTaintRule) { r.Spec.Taint.Effect = "PreferNoSchedule" }, []string{"FieldValueNotSupported spec.taint.effect"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		r := valid()
		tt.mutate(r)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), r))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// A stored effect unknown to this release survives other updates.
	old := valid()
	old.Spec.Taint.Effect = "FutureEffect"
	r := old.DeepCopy()
	r.Labels = map[string]string{"a": "b"}
	if errs := s.ValidateUpdate(context.Background(), r, old); len(errs) != 0 {
		t.Errorf("update keeping a stored unknown effect: %v", errs)
	}
}

// TestTimeAddedAndGeneration: the server stamps timeAdded when missing and
// again when the effect changes with the old time sent back; generation
// follows the spec; status is the controller's.
func TestTimeAddedAndGeneration(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	r, status := m["devicetaintrules"].(rest.StandardStorage), m["devicetaintrules/status"].(rest.Updater)
	ctx := registrytest.NamespaceContext("")
	in := valid()
	in.ResourceVersion = ""
	conditions := []metav1.Condition{{Type: "EvictionInProgress", Status: metav1.ConditionTrue, Reason: "X", LastTransitionTime: metav1.Now()}}
	in.Status.Conditions = conditions
	obj, err := r.Create(ctx, in, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created := obj.(*resourcev1.DeviceTaintRule)
	if created.Spec.Taint.TimeAdded == nil || created.Generation != 1 || len(created.Status.Conditions) != 0 {
		t.Fatalf("after create: timeAdded=%v generation=%d status=%+v, want a time, 1 and no status", created.Spec.Taint.TimeAdded, created.Generation, created.Status)
	}

	old := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	rule := created.DeepCopy()
	rule.Spec.Taint.TimeAdded = &old
	obj, _, err = r.Update(ctx, rule.Name, rest.DefaultUpdatedObjectInfo(rule), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rule = obj.(*resourcev1.DeviceTaintRule).DeepCopy()
	if !rule.Spec.Taint.TimeAdded.Equal(&old) || rule.Generation != 2 {
		t.Fatalf("explicit time: timeAdded=%v generation=%d, want %v and 2", rule.Spec.Taint.TimeAdded, rule.Generation, old)
	}
	rule.Spec.Taint.Effect = resourcev1.DeviceTaintEffectNoExecute
	obj, _, err = r.Update(ctx, rule.Name, rest.DefaultUpdatedObjectInfo(rule), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := obj.(*resourcev1.DeviceTaintRule).Spec.Taint.TimeAdded; got.Equal(&old) {
		t.Errorf("effect changed with the old time: timeAdded stayed %v, want now", got)
	}

	rule = obj.(*resourcev1.DeviceTaintRule).DeepCopy()
	rule.Status.Conditions = conditions
	rule.Spec.Taint.Key = "changed.example.com/key"
	obj, _, err = status.Update(ctx, rule.Name, rest.DefaultUpdatedObjectInfo(rule), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := obj.(*resourcev1.DeviceTaintRule); len(got.Status.Conditions) != 1 || got.Spec.Taint.Key != "example.com/maintenance" {
		t.Errorf("status write: conditions=%v key=%q, want one condition and the stored key", got.Status.Conditions, got.Spec.Taint.Key)
	}
}
