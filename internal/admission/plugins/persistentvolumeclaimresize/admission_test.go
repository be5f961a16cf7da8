package persistentvolumeclaimresize

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission"
)

func claim(class *string, size string, phase corev1.PersistentVolumeClaimPhase) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: "ns"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: phase},
	}
}

func TestValidate(t *testing.T) {
	const notExpandable = `persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize`
	tests := []struct {
		name     string
		old, new *corev1.PersistentVolumeClaim
		message  string
	}{
		{"grow in an expandable class", claim(ptr.To("gold"), "1Gi", corev1.ClaimBound), claim(ptr.To("gold"), "2Gi", corev1.ClaimBound), ""},
		{"same size", claim(ptr.To("silver"), "1Gi", corev1.ClaimBound), claim(ptr.To("silver"), "1Gi", corev1.ClaimBound), ""},
		{"shrink is not this plugin's business", claim(ptr.To("silver"), "2Gi", corev1.ClaimBound), claim(ptr.To("silver"), "1Gi", corev1.ClaimBound), ""},
		{"pending claim", claim(ptr.To("gold"), "1Gi", corev1.ClaimPending), claim(ptr.To("gold"), "2Gi", corev1.ClaimPending),
			`persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded`},
		{"class without expansion", claim(ptr.To("silver"), "1Gi", corev1.ClaimBound), claim(ptr.To("silver"), "2Gi", corev1.ClaimBound), notExpandable},
		{"class that does not say", claim(ptr.To("bronze"), "1Gi", corev1.ClaimBound), claim(ptr.To("bronze"), "2Gi", corev1.ClaimBound), notExpandable},
		{"missing class", claim(ptr.To("nope"), "1Gi", corev1.ClaimBound), claim(ptr.To("nope"), "2Gi", corev1.ClaimBound), notExpandable},
		{"no class", claim(nil, "1Gi", corev1.ClaimBound), claim(nil, "2Gi", corev1.ClaimBound), notExpandable},
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, c := range []*storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "gold"}, AllowVolumeExpansion: ptr.To(true)},
		{ObjectMeta: metav1.ObjectMeta{Name: "silver"}, AllowVolumeExpansion: ptr.To(false)},
		{ObjectMeta: metav1.ObjectMeta{Name: "bronze"}},
	} {
		if err := idx.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	p := New(storagelisters.NewStorageClassLister(idx))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admission.Attributes{Name: "data", Namespace: "ns", Operation: admission.Update,
				Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), Object: tt.new, OldObject: tt.old}
			err := p.Validate(context.Background(), a)
			if tt.message == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if !apierrors.IsForbidden(err) || err.Error() != tt.message {
				t.Fatalf("got %v, want 403 %s", err, tt.message)
			}
		})
	}
}
