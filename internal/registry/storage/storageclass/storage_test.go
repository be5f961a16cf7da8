package storageclass

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newREST(t *testing.T) rest.StandardStorage {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return m["storageclasses"].(rest.StandardStorage)
}

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	sc := registrytest.Golden(t, scheme, m["storageclasses"].(rest.Creater), "testdata", "minimal").(*storagev1.StorageClass)
	if *sc.ReclaimPolicy != corev1.PersistentVolumeReclaimDelete || *sc.VolumeBindingMode != storagev1.VolumeBindingImmediate {
		t.Errorf("defaults not applied: %+v", sc)
	}
}

func valid() *storagev1.StorageClass {
	return &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: "sc"},
		Provisioner:       "example.com/csi",
		Parameters:        map[string]string{"type": "ssd"},
		ReclaimPolicy:     ptr.To(corev1.PersistentVolumeReclaimDelete),
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingImmediate),
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
		mutate func(*storagev1.StorageClass)
		want   []string
	}{
		{"valid", func(*storagev1.StorageClass) {}, nil},
		{"no provisioner", func(sc *storagev1.StorageClass) { sc.Provisioner = "" }, []string{"FieldValueRequired provisioner"}},
		{"bad provisioner", func(sc *storagev1.StorageClass) { sc.Provisioner = "a b" }, []string{"FieldValueInvalid provisioner"}},
		{"recycle", func(sc *storagev1.StorageClass) { sc.ReclaimPolicy = ptr.To(corev1.PersistentVolumeReclaimRecycle) }, []string{"FieldValueNotSupported reclaimPolicy"}},
		{"binding mode", func(sc *storagev1.StorageClass) { sc.VolumeBindingMode = ptr.To(storagev1.VolumeBindingMode("Later")) }, []string{"FieldValueNotSupported volumeBindingMode"}},
		{"empty parameter key", func(sc *storagev1.StorageClass) { sc.Parameters[""] = "x" }, []string{"FieldValueInvalid parameters"}},
		{"bad name", func(sc *storagev1.StorageClass) { sc.Name = "Bad_Name" }, []string{"FieldValueInvalid metadata.name"}},
		{"topology without values", func(sc *storagev1.StorageClass) {
			sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: "zone"}}}}
		}, []string{"FieldValueRequired allowedTopologies[0].matchLabelExpressions[0].values"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		sc := valid()
		tt.mutate(sc)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), sc))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestImmutableFields(t *testing.T) {
	r := newREST(t)
	ctx := registrytest.NamespaceContext("")
	created, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mutate func(*storagev1.StorageClass)
		want   string
	}{
		{"provisioner", func(sc *storagev1.StorageClass) { sc.Provisioner = "other.example.com/csi" }, "provisioner: Forbidden: updates to provisioner are forbidden."},
		{"parameters", func(sc *storagev1.StorageClass) { sc.Parameters = nil }, "parameters: Forbidden: updates to parameters are forbidden."},
		{"reclaimPolicy", func(sc *storagev1.StorageClass) { sc.ReclaimPolicy = ptr.To(corev1.PersistentVolumeReclaimRetain) }, "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden."},
	}
	for _, tt := range tests {
		sc := created.(*storagev1.StorageClass).DeepCopy()
		tt.mutate(sc)
		_, _, err := r.Update(ctx, sc.Name, rest.DefaultUpdatedObjectInfo(sc), nil, nil, false, &metav1.UpdateOptions{})
		if !apierrors.IsInvalid(err) || !containsCause(err, tt.want) {
			t.Errorf("%s: got %v, want Invalid with %q", tt.name, err, tt.want)
		}
	}
	// Labels may change.
	sc := created.(*storagev1.StorageClass).DeepCopy()
	sc.Labels = map[string]string{"tier": "fast"}
	if _, _, err := r.Update(ctx, sc.Name, rest.DefaultUpdatedObjectInfo(sc), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Errorf("label update: %v", err)
	}
}

func containsCause(err error, want string) bool {
	status, ok := err.(apierrors.APIStatus)
	if !ok || status.Status().Details == nil {
		return false
	}
	for _, c := range status.Status().Details.Causes {
		if c.Field+": "+c.Message == want {
			return true
		}
	}
	return false
}

func TestTable(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sc := valid()
	sc.CreationTimestamp = created
	sc.Annotations = map[string]string{isDefaultAnnotation: "true"}
	sc.AllowVolumeExpansion = ptr.To(true)
	table, err := Table().WithClock(func() time.Time { return created.Add(time.Hour) }).ConvertToTable(context.Background(), sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name)
	}
	wantNames := []string{"Name", "Provisioner", "ReclaimPolicy", "VolumeBindingMode", "AllowVolumeExpansion", "Age"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	want := []any{"sc (default)", "example.com/csi", "Delete", "Immediate", true, "60m"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
