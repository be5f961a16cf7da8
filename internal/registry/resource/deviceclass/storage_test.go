package deviceclass

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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
	registrytest.Golden(t, scheme, m["deviceclasses"].(rest.Creater), "testdata", "minimal")
}

func valid() *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: resourcev1.DeviceClassSpec{
			Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: "true"}}},
			Config: []resourcev1.DeviceClassConfiguration{{DeviceConfiguration: resourcev1.DeviceConfiguration{
				Opaque: &resourcev1.OpaqueDeviceConfiguration{Driver: "gpu.example.com", Parameters: runtime.RawExtension{Raw: []byte(`{"a":1}`)}},
			}}},
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
		mutate func(*resourcev1.DeviceClass)
		want   []string
	}{
		{"valid", func(*resourcev1.DeviceClass) {}, nil},
		{"no cel", func(dc *resourcev1.DeviceClass) { dc.Spec.Selectors[0].CEL = nil }, []string{"FieldValueRequired spec.selectors[0].cel"}},
		{"empty expression", func(dc *resourcev1.DeviceClass) { dc.Spec.Selectors[0].CEL.Expression = "" }, []string{"FieldValueRequired spec.selectors[0].cel.expression"}},
		{"no opaque", func(dc *resourcev1.DeviceClass) { dc.Spec.Config[0].Opaque = nil }, []string{"FieldValueRequired spec.config[0].opaque"}},
		{"parameters not an object", func(dc *resourcev1.DeviceClass) { dc.Spec.Config[0].Opaque.Parameters.Raw = []byte(`[1]`) }, []string{"FieldValueInvalid spec.config[0].opaque.parameters"}},
		{"no driver", func(dc *resourcev1.DeviceClass) { dc.Spec.Config[0].Opaque.Driver = "" }, []string{"FieldValueRequired spec.config[0].opaque.driver"}},
		{"bad name", func(dc *resourcev1.DeviceClass) { dc.Name = "GPU" }, []string{"FieldValueInvalid metadata.name"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		dc := valid()
		tt.mutate(dc)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), dc))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestGeneration(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	r := m["deviceclasses"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("")
	obj, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := obj.(*resourcev1.DeviceClass).Generation; g != 1 {
		t.Errorf("generation on create = %d, want 1", g)
	}
	dc := obj.(*resourcev1.DeviceClass).DeepCopy()
	dc.Labels = map[string]string{"a": "b"}
	obj, _, err = r.Update(ctx, dc.Name, rest.DefaultUpdatedObjectInfo(dc), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil || obj.(*resourcev1.DeviceClass).Generation != 1 {
		t.Errorf("label update: err=%v generation=%d, want 1", err, obj.(*resourcev1.DeviceClass).Generation)
	}
	dc = obj.(*resourcev1.DeviceClass).DeepCopy()
	dc.Spec.Selectors[0].CEL.Expression = "false"
	obj, _, err = r.Update(ctx, dc.Name, rest.DefaultUpdatedObjectInfo(dc), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil || obj.(*resourcev1.DeviceClass).Generation != 2 {
		t.Errorf("spec update: err=%v generation=%d, want 2", err, obj.(*resourcev1.DeviceClass).Generation)
	}
}
