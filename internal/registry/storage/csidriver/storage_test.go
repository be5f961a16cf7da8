package csidriver

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	kapistoragev1 "github.com/kapi-dev/kapi/internal/apis/storage/v1"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	registrytest.Golden(t, scheme, m["csidrivers"].(rest.Creater), "testdata", "minimal")
}

func valid() *storagev1.CSIDriver {
	d := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "csi.example.com"}}
	kapistoragev1.SetDefaultsCSIDriver(d)
	return d
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
		mutate func(*storagev1.CSIDriver)
		want   []string
	}{
		{"valid", func(*storagev1.CSIDriver) {}, nil},
		{"bad name", func(d *storagev1.CSIDriver) { d.Name = "csi_example" }, []string{"FieldValueInvalid name"}},
		{"no attachRequired", func(d *storagev1.CSIDriver) { d.Spec.AttachRequired = nil }, []string{"FieldValueRequired spec.attachRequired"}},
		{"mode", func(d *storagev1.CSIDriver) { d.Spec.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{"Other"} }, []string{"FieldValueNotSupported spec.volumeLifecycleModes[0]"}},
		{"fsGroupPolicy", func(d *storagev1.CSIDriver) { d.Spec.FSGroupPolicy = ptr.To(storagev1.FSGroupPolicy("Any")) }, []string{"FieldValueNotSupported spec.fsGroupPolicy"}},
		{"token requests", func(d *storagev1.CSIDriver) {
			d.Spec.TokenRequests = []storagev1.TokenRequest{{Audience: "a"}, {Audience: "a", ExpirationSeconds: ptr.To[int64](60)}}
		}, []string{"FieldValueDuplicate spec.tokenRequests[1].audience", "FieldValueInvalid spec.tokenRequests[1].expirationSeconds"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		d := valid()
		tt.mutate(d)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), d))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestUpdate(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	r := m["csidrivers"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("")
	obj, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created := obj.(*storagev1.CSIDriver)

	d := created.DeepCopy()
	d.Spec.AttachRequired = ptr.To(false)
	if _, _, err := r.Update(ctx, d.Name, rest.DefaultUpdatedObjectInfo(d), nil, nil, false, &metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("attachRequired update: %v, want Invalid", err)
	}

	d = created.DeepCopy()
	d.Spec.RequiresRepublish = ptr.To(true)
	obj, _, err = r.Update(ctx, d.Name, rest.DefaultUpdatedObjectInfo(d), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := obj.(*storagev1.CSIDriver).Generation; g != created.Generation+1 {
		t.Errorf("generation after requiresRepublish change = %d, want %d", g, created.Generation+1)
	}
	d = obj.(*storagev1.CSIDriver).DeepCopy()
	d.Labels = map[string]string{"a": "b"}
	obj, _, err = r.Update(ctx, d.Name, rest.DefaultUpdatedObjectInfo(d), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g := obj.(*storagev1.CSIDriver).Generation; g != created.Generation+1 {
		t.Errorf("generation after a label change = %d, want %d", g, created.Generation+1)
	}
}
