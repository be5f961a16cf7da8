package storageobjectinuseprotection

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

func TestAdmit(t *testing.T) {
	core := func(r string) schema.GroupVersionResource { return corev1.SchemeGroupVersion.WithResource(r) }
	tests := []struct {
		name     string
		resource schema.GroupVersionResource
		op       admission.Operation
		sub      string
		obj      runtime.Object
		want     []string
	}{
		{"pv", core("persistentvolumes"), admission.Create, "", &corev1.PersistentVolume{}, []string{PVProtectionFinalizer}},
		{"pvc keeps its finalizers", core("persistentvolumeclaims"), admission.Create, "", &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Finalizers: []string{"x"}}}, []string{"x", PVCProtectionFinalizer}},
		{"pvc already protected", core("persistentvolumeclaims"), admission.Create, "", &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Finalizers: []string{PVCProtectionFinalizer}}}, []string{PVCProtectionFinalizer}},
		{"volume attributes class", storagev1.SchemeGroupVersion.WithResource("volumeattributesclasses"), admission.Create, "", &storagev1.VolumeAttributesClass{}, []string{VACProtectionFinalizer}},
		{"update untouched", core("persistentvolumeclaims"), admission.Update, "", &corev1.PersistentVolumeClaim{}, nil},
		{"status untouched", core("persistentvolumes"), admission.Create, "status", &corev1.PersistentVolume{}, nil},
		{"other resources untouched", core("configmaps"), admission.Create, "", &corev1.ConfigMap{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admission.Attributes{Resource: tt.resource, Operation: tt.op, Subresource: tt.sub, Object: tt.obj}
			if err := (Plugin{}).Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if got := tt.obj.(metav1.Object).GetFinalizers(); !slices.Equal(got, tt.want) {
				t.Errorf("finalizers = %v, want %v", got, tt.want)
			}
		})
	}
}
