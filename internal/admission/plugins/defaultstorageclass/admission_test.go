package defaultstorageclass

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission"
)

func class(name string, age time.Duration, annotations map[string]string) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations,
		CreationTimestamp: metav1.NewTime(time.Unix(1_000_000, 0).Add(-age))}}
}

func TestAdmit(t *testing.T) {
	def := map[string]string{IsDefaultAnnotation: "true"}
	beta := map[string]string{BetaIsDefaultAnnotation: "true"}
	tests := []struct {
		name    string
		classes []*storagev1.StorageClass
		pvc     *corev1.PersistentVolumeClaim
		want    *string
	}{
		{"no default", []*storagev1.StorageClass{class("a", 0, nil), class("b", 0, map[string]string{IsDefaultAnnotation: "false"})}, &corev1.PersistentVolumeClaim{}, nil},
		{"one default", []*storagev1.StorageClass{class("a", 0, nil), class("gold", time.Hour, def)}, &corev1.PersistentVolumeClaim{}, ptr.To("gold")},
		{"beta annotation", []*storagev1.StorageClass{class("old", 0, beta)}, &corev1.PersistentVolumeClaim{}, ptr.To("old")},
		{"several defaults: the newest", []*storagev1.StorageClass{class("older", time.Hour, def), class("newer", time.Minute, def)}, &corev1.PersistentVolumeClaim{}, ptr.To("newer")},
		{"several defaults of the same age: by name", []*storagev1.StorageClass{class("b", 0, def), class("a", 0, def)}, &corev1.PersistentVolumeClaim{}, ptr.To("a")},
		{"class asked for", []*storagev1.StorageClass{class("gold", 0, def)}, &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("silver")}}, ptr.To("silver")},
		{"empty class means none", []*storagev1.StorageClass{class("gold", 0, def)}, &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("")}}, ptr.To("")},
		{"beta class annotation", []*storagev1.StorageClass{class("gold", 0, def)},
			&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{corev1.BetaStorageClassAnnotation: "x"}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			for _, c := range tt.classes {
				if err := idx.Add(c); err != nil {
					t.Fatal(err)
				}
			}
			p := New(storagelisters.NewStorageClassLister(idx))
			a := &admission.Attributes{Namespace: "ns", Operation: admission.Create,
				Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), Object: tt.pvc}
			if err := p.Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			got := tt.pvc.Spec.StorageClassName
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("storageClassName = %v, want %v", ptr.Deref(got, "<nil>"), ptr.Deref(tt.want, "<nil>"))
			}
		})
	}
}

// TestNotReady: until the classes are listed a claim waits, then is
// refused as upstream refuses it.
func TestNotReady(t *testing.T) {
	p := New(storagelisters.NewStorageClassLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})))
	p.Synced = func() bool { return false }
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := &admission.Attributes{Name: "c", Namespace: "ns", Operation: admission.Create,
		Resource: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), Object: &corev1.PersistentVolumeClaim{}}
	err := p.Admit(ctx, a)
	if err == nil || err.Error() != `persistentvolumeclaims "c" is forbidden: not yet ready to handle request` {
		t.Fatalf("got %v", err)
	}
}
