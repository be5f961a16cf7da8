package persistentvolume

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

var clock = registrytest.GoldenTime.Time

func newTestStorage(t *testing.T, now func() time.Time) (*runtime.Scheme, *generic.Store, rest.Patcher) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := newStorage(scheme, registrytest.NewOptionsGetter(t, scheme), now)
	if err != nil {
		t.Fatalf("newStorage: %v", err)
	}
	return scheme, storage["persistentvolumes"].(*generic.Store), storage["persistentvolumes/status"].(rest.Patcher)
}

func TestGolden(t *testing.T) {
	scheme, store, _ := newTestStorage(t, func() time.Time { return clock })
	pv := registrytest.Golden(t, scheme, store, "testdata", "persistentvolume").(*corev1.PersistentVolume)
	if pv.Status.Phase != corev1.VolumePending || pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimRetain {
		t.Errorf("created %+v", pv)
	}
	if store.NamespaceScoped() || !cmp.Equal(store.ShortNames(), []string{"pv"}) {
		t.Errorf("namespaced=%v short names=%v", store.NamespaceScoped(), store.ShortNames())
	}
}

func validPV(name string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{"storage": resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data", Type: ptr.To(corev1.HostPathUnset)}},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			VolumeMode:                    ptr.To(corev1.PersistentVolumeFilesystem),
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
	_, store, _ := newTestStorage(t, time.Now)
	tests := []struct {
		name   string
		mutate func(*corev1.PersistentVolume)
		causes []string
	}{
		{"no storage capacity", func(pv *corev1.PersistentVolume) {
			pv.Spec.Capacity = corev1.ResourceList{"cpu": resource.MustParse("1")}
		},
			[]string{"spec.capacity"}},
		{"no access modes", func(pv *corev1.PersistentVolume) { pv.Spec.AccessModes = nil }, []string{"spec.accessModes"}},
		{"bad access mode", func(pv *corev1.PersistentVolume) { pv.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{"RWO"} }, []string{"spec.accessModes"}},
		{"no source", func(pv *corev1.PersistentVolume) { pv.Spec.HostPath = nil }, []string{"spec"}},
		{"two sources", func(pv *corev1.PersistentVolume) { pv.Spec.NFS = &corev1.NFSVolumeSource{Server: "s", Path: "/x"} }, []string{"spec.nfs"}},
	}
	for _, tt := range tests {
		pv := validPV("pv")
		tt.mutate(pv)
		_, err := store.Create(context.Background(), pv, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
		assertInvalid(t, tt.name, err, tt.causes)
	}
}

func TestUpdates(t *testing.T) {
	tick := clock
	_, store, status := newTestStorage(t, func() time.Time { return tick })
	ctx := context.Background()
	pv := validPV("pv")
	pv.Status.Phase = corev1.VolumeBound
	obj, err := store.Create(ctx, pv, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	created := obj.(*corev1.PersistentVolume)
	if created.Status.Phase != corev1.VolumePending || !created.Status.LastPhaseTransitionTime.Time.Equal(clock) {
		t.Errorf("created status %+v, want Pending at %v", created.Status, clock)
	}

	// The main resource keeps status; the claim reference may change.
	upd := created.DeepCopy()
	upd.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "ns", Name: "c"}
	upd.Status.Phase = corev1.VolumeFailed
	obj, _, err = store.Update(ctx, "pv", rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if got := obj.(*corev1.PersistentVolume); got.Status.Phase != corev1.VolumePending || got.Spec.ClaimRef == nil {
		t.Errorf("update: phase=%v claimRef=%v", got.Status.Phase, got.Spec.ClaimRef)
	}

	// The status subresource keeps spec and stamps a phase change.
	tick = clock.Add(time.Hour)
	st := obj.(*corev1.PersistentVolume).DeepCopy()
	st.Spec.ClaimRef = nil
	st.Status.Phase = corev1.VolumeBound
	obj, _, err = status.Update(ctx, "pv", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("status update: %v", err)
	}
	got := obj.(*corev1.PersistentVolume)
	if got.Spec.ClaimRef == nil || got.Status.Phase != corev1.VolumeBound || !got.Status.LastPhaseTransitionTime.Time.Equal(tick) {
		t.Errorf("status update: claimRef=%v status=%+v", got.Spec.ClaimRef, got.Status)
	}

	// The volume source is immutable.
	src := got.DeepCopy()
	src.Spec.HostPath.Path = "/elsewhere"
	_, _, err = store.Update(ctx, "pv", rest.DefaultUpdatedObjectInfo(src), nil, nil, false, &metav1.UpdateOptions{})
	assertInvalid(t, "source change", err, []string{"spec.persistentvolumesource"})
}

func TestTable(t *testing.T) {
	now := clock.Add(3 * time.Hour)
	pv := validPV("pv")
	pv.CreationTimestamp = metav1.NewTime(clock)
	pv.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadWriteOnce, corev1.ReadWriteOnce}
	pv.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "ns", Name: "c"}
	pv.Spec.StorageClassName = "fast"
	pv.Status.Phase = corev1.VolumeBound
	got, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), pv, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"pv", "1Gi", "RWO,RWX", "Retain", "Bound", "ns/c", "fast", "<unset>", "", "3h", "Filesystem"}
	if diff := cmp.Diff(want, got.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	if n := len(got.ColumnDefinitions); n != 11 || got.ColumnDefinitions[10].Priority != 1 {
		t.Errorf("columns %+v", got.ColumnDefinitions)
	}
}
