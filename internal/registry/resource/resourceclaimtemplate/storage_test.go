package resourceclaimtemplate

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := registrytest.Golden(t, scheme, m["resourceclaimtemplates"].(rest.Creater), "testdata", "minimal").(*resourcev1.ResourceClaimTemplate)
	if e := tmpl.Spec.Spec.Devices.Requests[0].Exactly; e.AllocationMode != resourcev1.DeviceAllocationModeExactCount || e.Count != 1 || e.Tolerations[0].Operator != resourcev1.DeviceTolerationOpEqual {
		t.Errorf("defaults not applied: %+v", e)
	}
}

func valid() *resourcev1.ResourceClaimTemplate {
	return &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns"},
		Spec: resourcev1.ResourceClaimTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
			Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
				Name:    "gpu",
				Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1},
			}}}},
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
		mutate func(*resourcev1.ResourceClaimTemplate)
		want   []string
	}{
		{"valid", func(*resourcev1.ResourceClaimTemplate) {}, nil},
		{"bad label", func(tm *resourcev1.ResourceClaimTemplate) { tm.Spec.Labels = map[string]string{"a b": "c"} }, []string{"FieldValueInvalid spec.metadata.labels"}},
		{"no class", func(tm *resourcev1.ResourceClaimTemplate) {
			tm.Spec.Spec.Devices.Requests[0].Exactly.DeviceClassName = ""
		}, []string{"FieldValueRequired spec.spec.devices.requests[0].exactly.deviceClassName"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		tm := valid()
		tt.mutate(tm)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), tm))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestSpecImmutable(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	r := m["resourceclaimtemplates"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("ns")
	obj, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tm := obj.(*resourcev1.ResourceClaimTemplate).DeepCopy()
	tm.Spec.Spec.Devices.Requests[0].Exactly.Count = 2
	if _, _, err := r.Update(ctx, tm.Name, rest.DefaultUpdatedObjectInfo(tm), nil, nil, false, &metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("spec change: %v, want Invalid", err)
	}
}
