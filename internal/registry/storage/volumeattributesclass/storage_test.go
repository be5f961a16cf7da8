package volumeattributesclass

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	storagev1 "k8s.io/api/storage/v1"
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
	registrytest.Golden(t, scheme, m["volumeattributesclasses"].(rest.Creater), "testdata", "minimal")
}

func valid() *storagev1.VolumeAttributesClass {
	return &storagev1.VolumeAttributesClass{
		ObjectMeta: metav1.ObjectMeta{Name: "gold"},
		DriverName: "csi.example.com",
		Parameters: map[string]string{"iops": "3000"},
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
		mutate func(*storagev1.VolumeAttributesClass)
		want   []string
	}{
		{"valid", func(*storagev1.VolumeAttributesClass) {}, nil},
		{"no driver", func(v *storagev1.VolumeAttributesClass) { v.DriverName = "" }, []string{"FieldValueRequired driverName"}},
		{"no parameters", func(v *storagev1.VolumeAttributesClass) { v.Parameters = nil }, []string{"FieldValueRequired parameters"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		v := valid()
		tt.mutate(v)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), v))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestImmutable(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	r := m["volumeattributesclasses"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("")
	obj, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*storagev1.VolumeAttributesClass){
		"driverName": func(v *storagev1.VolumeAttributesClass) { v.DriverName = "other.example.com" },
		"parameters": func(v *storagev1.VolumeAttributesClass) { v.Parameters["iops"] = "1" },
	} {
		v := obj.(*storagev1.VolumeAttributesClass).DeepCopy()
		mutate(v)
		if _, _, err := r.Update(ctx, v.Name, rest.DefaultUpdatedObjectInfo(v), nil, nil, false, &metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
			t.Errorf("%s change: %v, want Invalid", name, err)
		}
	}
}
