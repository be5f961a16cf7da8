package resourceslice

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
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
	registrytest.Golden(t, scheme, m["resourceslices"].(rest.Creater), "testdata", "minimal")
}

func valid() *resourcev1.ResourceSlice {
	return &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   "gpu.example.com",
			NodeName: ptr.To("node-1"),
			Pool:     resourcev1.ResourcePool{Name: "node-1", ResourceSliceCount: 1},
			Devices:  []resourcev1.Device{{Name: "gpu-0"}},
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
		mutate func(*resourcev1.ResourceSlice)
		want   []string
	}{
		{"valid", func(*resourcev1.ResourceSlice) {}, nil},
		{"no driver", func(s *resourcev1.ResourceSlice) { s.Spec.Driver = "" }, []string{"FieldValueRequired spec.driver"}},
		{"no pool", func(s *resourcev1.ResourceSlice) { s.Spec.Pool = resourcev1.ResourcePool{} }, []string{"FieldValueRequired spec.pool.name", "FieldValueInvalid spec.pool.resourceSliceCount"}},
		{"no node selection", func(s *resourcev1.ResourceSlice) { s.Spec.NodeName = nil }, []string{"FieldValueRequired spec"}},
		{"two node selections", func(s *resourcev1.ResourceSlice) { s.Spec.AllNodes = ptr.To(true) }, []string{"FieldValueInvalid spec"}},
		{"duplicate device", func(s *resourcev1.ResourceSlice) { s.Spec.Devices = append(s.Spec.Devices, s.Spec.Devices[0]) }, []string{"FieldValueDuplicate spec.devices[1].name"}},
		{"bad device name", func(s *resourcev1.ResourceSlice) { s.Spec.Devices[0].Name = "GPU_0" }, []string{"FieldValueInvalid spec.devices[0].name"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		sl := valid()
		tt.mutate(sl)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), sl))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestUpdateAndSelect(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	r := m["resourceslices"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("")
	obj, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := obj.(*resourcev1.ResourceSlice).Generation; g != 1 {
		t.Errorf("generation = %d, want 1", g)
	}
	s := obj.(*resourcev1.ResourceSlice).DeepCopy()
	s.Spec.NodeName = ptr.To("node-2")
	if _, _, err := r.Update(ctx, s.Name, rest.DefaultUpdatedObjectInfo(s), nil, nil, false, &metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("node change: %v, want Invalid", err)
	}
	s = obj.(*resourcev1.ResourceSlice).DeepCopy()
	s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: "gpu-1"})
	obj, _, err = r.Update(ctx, s.Name, rest.DefaultUpdatedObjectInfo(s), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil || obj.(*resourcev1.ResourceSlice).Generation != 2 {
		t.Errorf("device added: err=%v, want generation 2", err)
	}
	for sel, want := range map[string]int{"spec.nodeName=node-1": 1, "spec.driver=other": 0, "spec.pool.name=node-1": 1} {
		fs, err := fields.ParseSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		list, err := r.List(ctx, &metainternalversion.ListOptions{FieldSelector: fs})
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		if n := len(list.(*resourcev1.ResourceSliceList).Items); n != want {
			t.Errorf("%s selected %d, want %d", sel, n, want)
		}
	}
}

func TestSelectableFieldsAreAccepted(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	_, fs, err := GetAttrs(&resourcev1.ResourceSlice{})
	if err != nil {
		t.Fatal(err)
	}
	gvk := resourcev1.SchemeGroupVersion.WithKind("ResourceSlice")
	for label := range fs {
		if _, _, err := scheme.ConvertFieldLabel(gvk, label, "x"); err != nil {
			t.Errorf("%s offered but rejected: %v", label, err)
		}
	}
	if _, _, err := scheme.ConvertFieldLabel(gvk, "spec.allNodes", "x"); err == nil {
		t.Error("spec.allNodes accepted")
	}
}
