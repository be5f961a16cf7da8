package volumeattachment

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newStorage(t *testing.T) map[string]rest.Storage {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	va := registrytest.Golden(t, scheme, m["volumeattachments"].(rest.Creater), "testdata", "minimal").(*storagev1.VolumeAttachment)
	if va.Status.Attached {
		t.Error("create kept status")
	}
}

func valid() *storagev1.VolumeAttachment {
	return &storagev1.VolumeAttachment{
		ObjectMeta: metav1.ObjectMeta{Name: "va"},
		Spec: storagev1.VolumeAttachmentSpec{
			Attacher: "example.com",
			NodeName: "node-1",
			Source:   storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr.To("pv-1")},
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
		mutate func(*storagev1.VolumeAttachment)
		want   []string
	}{
		{"valid", func(*storagev1.VolumeAttachment) {}, nil},
		{"no attacher", func(va *storagev1.VolumeAttachment) { va.Spec.Attacher = "" }, []string{"FieldValueRequired spec.attacher", "FieldValueRequired spec.attacher"}},
		{"no source", func(va *storagev1.VolumeAttachment) { va.Spec.Source = storagev1.VolumeAttachmentSource{} }, []string{"FieldValueRequired spec.source"}},
		{"empty pv name", func(va *storagev1.VolumeAttachment) { va.Spec.Source.PersistentVolumeName = ptr.To("") }, []string{"FieldValueRequired spec.source.persistentVolumeName", "FieldValueInvalid spec.source.persistentVolumeName"}},
		{"bad node", func(va *storagev1.VolumeAttachment) { va.Spec.NodeName = "Node_1" }, []string{"FieldValueInvalid spec.nodeName"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		va := valid()
		tt.mutate(va)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), va))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestSpecAndStatus(t *testing.T) {
	m := newStorage(t)
	r := m["volumeattachments"].(rest.StandardStorage)
	status := m["volumeattachments/status"].(rest.Updater)
	ctx := registrytest.NamespaceContext("")
	obj, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created := obj.(*storagev1.VolumeAttachment)

	// The spec is immutable.
	va := created.DeepCopy()
	va.Spec.NodeName = "node-2"
	if _, _, err := r.Update(ctx, va.Name, rest.DefaultUpdatedObjectInfo(va), nil, nil, false, &metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("spec update: %v, want Invalid", err)
	}

	// A status write changes the status and ignores spec changes.
	va = created.DeepCopy()
	va.Spec.NodeName = "node-2"
	va.Status.Attached = true
	obj, _, err = status.Update(ctx, va.Name, rest.DefaultUpdatedObjectInfo(va), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("status update: %v", err)
	}
	got := obj.(*storagev1.VolumeAttachment)
	if !got.Status.Attached || got.Spec.NodeName != "node-1" {
		t.Errorf("status update stored attached=%v node=%q", got.Status.Attached, got.Spec.NodeName)
	}

	// A main-resource write keeps the status.
	va = got.DeepCopy()
	va.Status.Attached = false
	va.Labels = map[string]string{"a": "b"}
	obj, _, err = r.Update(ctx, va.Name, rest.DefaultUpdatedObjectInfo(va), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if !obj.(*storagev1.VolumeAttachment).Status.Attached {
		t.Error("main update changed status")
	}
}
