package persistentvolumeclaim

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newTestStorage(t *testing.T) (*runtime.Scheme, *generic.Store, rest.Patcher) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewStorage: %v", err)
	}
	return scheme, storage["persistentvolumeclaims"].(*generic.Store), storage["persistentvolumeclaims/status"].(rest.Patcher)
}

func TestGolden(t *testing.T) {
	scheme, store, _ := newTestStorage(t)
	pvc := registrytest.Golden(t, scheme, store, "testdata", "persistentvolumeclaim").(*corev1.PersistentVolumeClaim)
	if pvc.Status.Phase != corev1.ClaimPending || pvc.Spec.VolumeMode == nil || *pvc.Spec.VolumeMode != corev1.PersistentVolumeFilesystem {
		t.Errorf("created %+v", pvc)
	}
	if !store.NamespaceScoped() || !cmp.Equal(store.ShortNames(), []string{"pvc"}) {
		t.Errorf("namespaced=%v short names=%v", store.NamespaceScoped(), store.ShortNames())
	}
}

func validPVC() *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{"storage": resource.MustParse("1Gi")}},
			VolumeMode:  ptr.To(corev1.PersistentVolumeFilesystem),
		},
	}
}

func assertInvalid(t *testing.T, name string, err error, fields []string) {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Errorf("%s: err = %v, want Invalid", name, err)
		return
	}
	var got []string
	for _, c := range err.(apierrors.APIStatus).Status().Details.Causes {
		got = append(got, c.Field)
	}
	if diff := cmp.Diff(fields, got); diff != "" {
		t.Errorf("%s: causes (-want +got):\n%s", name, diff)
	}
}

func TestCreateInvalid(t *testing.T) {
	_, store, _ := newTestStorage(t)
	tests := []struct {
		name   string
		mutate func(*corev1.PersistentVolumeClaim)
		causes []string
	}{
		{"no access modes", func(c *corev1.PersistentVolumeClaim) { c.Spec.AccessModes = nil }, []string{"spec.accessModes"}},
		{"no storage", func(c *corev1.PersistentVolumeClaim) { c.Spec.Resources.Requests = nil }, []string{"spec.resources[storage]"}},
		{"volume mode", func(c *corev1.PersistentVolumeClaim) { c.Spec.VolumeMode = ptr.To[corev1.PersistentVolumeMode]("Raw") }, []string{"spec.volumeMode"}},
		{"namespace", func(c *corev1.PersistentVolumeClaim) { c.Namespace = "other" }, nil},
	}
	ctx := registrytest.NamespaceContext("ns")
	for _, tt := range tests {
		pvc := validPVC()
		tt.mutate(pvc)
		_, err := store.Create(ctx, pvc, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
		if tt.causes == nil {
			if !apierrors.IsBadRequest(err) {
				t.Errorf("%s: %v, want BadRequest", tt.name, err)
			}
			continue
		}
		assertInvalid(t, tt.name, err, tt.causes)
	}
}

func TestUpdates(t *testing.T) {
	_, store, status := newTestStorage(t)
	ctx := registrytest.NamespaceContext("ns")
	pvc := validPVC()
	pvc.Spec.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "src"}
	pvc.Status.Phase = corev1.ClaimBound
	obj, err := store.Create(ctx, pvc, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	created := obj.(*corev1.PersistentVolumeClaim)
	if created.Status.Phase != corev1.ClaimPending {
		t.Errorf("created phase %q, want Pending", created.Status.Phase)
	}
	if ref := created.Spec.DataSourceRef; ref == nil || ref.Name != "src" || ref.Kind != "PersistentVolumeClaim" {
		t.Errorf("dataSourceRef = %+v, want a copy of dataSource", ref)
	}

	// Binding through the main resource: volumeName may be set once;
	// status is kept.
	bind := created.DeepCopy()
	bind.Spec.VolumeName = "pv1"
	bind.Status.Phase = corev1.ClaimLost
	obj, _, err = store.Update(ctx, "c", rest.DefaultUpdatedObjectInfo(bind), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("bind: %v", err)
	}
	if got := obj.(*corev1.PersistentVolumeClaim); got.Spec.VolumeName != "pv1" || got.Status.Phase != corev1.ClaimPending {
		t.Errorf("bind: volumeName=%q phase=%q", got.Spec.VolumeName, got.Status.Phase)
	}

	// The status subresource keeps spec.
	st := obj.(*corev1.PersistentVolumeClaim).DeepCopy()
	st.Spec.VolumeName = "other"
	st.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{"storage": resource.MustParse("1Gi")},
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}
	obj, _, err = status.Update(ctx, "c", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if got := obj.(*corev1.PersistentVolumeClaim); got.Spec.VolumeName != "pv1" || got.Status.Phase != corev1.ClaimBound {
		t.Errorf("status: volumeName=%q phase=%q", got.Spec.VolumeName, got.Status.Phase)
	}

	// A bound claim may grow, but not change its access modes.
	grow := obj.(*corev1.PersistentVolumeClaim).DeepCopy()
	grow.Spec.Resources.Requests["storage"] = resource.MustParse("2Gi")
	obj, _, err = store.Update(ctx, "c", rest.DefaultUpdatedObjectInfo(grow), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("grow: %v", err)
	}
	modes := obj.(*corev1.PersistentVolumeClaim).DeepCopy()
	modes.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
	_, _, err = store.Update(ctx, "c", rest.DefaultUpdatedObjectInfo(modes), nil, nil, false, &metav1.UpdateOptions{})
	assertInvalid(t, "access modes", err, []string{"spec"})
}

func TestTable(t *testing.T) {
	created := registrytest.GoldenTime
	now := created.Add(90 * time.Second)
	pending := validPVC()
	pending.CreationTimestamp = created
	pending.Status.Phase = corev1.ClaimPending
	pending.Spec.StorageClassName = ptr.To("standard")
	bound := pending.DeepCopy()
	bound.Spec.VolumeName = "pv1"
	bound.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: corev1.ResourceList{"storage": resource.MustParse("2Gi")},
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadOnlyMany}}
	bound.Spec.VolumeAttributesClassName = ptr.To("gold")
	tests := []struct {
		name string
		pvc  *corev1.PersistentVolumeClaim
		want []any
	}{
		{"pending", pending, []any{"c", "Pending", "", "", "", "standard", "<unset>", "90s", "Filesystem"}},
		{"bound", bound, []any{"c", "Bound", "pv1", "2Gi", "RWO,ROX", "standard", "gold", "90s", "Filesystem"}},
	}
	table := Table().WithClock(func() time.Time { return now })
	for _, tt := range tests {
		got, err := table.ConvertToTable(context.Background(), tt.pvc, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got.Rows[0].Cells); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
