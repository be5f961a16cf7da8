package csistoragecapacity

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
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
	registrytest.Golden(t, scheme, m["csistoragecapacities"].(rest.Creater), "testdata", "minimal")
}

func valid() *storagev1.CSIStorageCapacity {
	q := resource.MustParse("1Gi")
	return &storagev1.CSIStorageCapacity{
		ObjectMeta:       metav1.ObjectMeta{Name: "c", Namespace: "ns"},
		StorageClassName: "standard",
		Capacity:         &q,
		NodeTopology:     &metav1.LabelSelector{MatchLabels: map[string]string{"zone": "a"}},
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
	neg := resource.MustParse("-1")
	tests := []struct {
		name   string
		mutate func(*storagev1.CSIStorageCapacity)
		want   []string
	}{
		{"valid", func(*storagev1.CSIStorageCapacity) {}, nil},
		{"no class", func(c *storagev1.CSIStorageCapacity) { c.StorageClassName = "" }, []string{"FieldValueInvalid storageClassName"}},
		{"negative", func(c *storagev1.CSIStorageCapacity) { c.Capacity = &neg }, []string{"FieldValueInvalid capacity"}},
		{"no namespace", func(c *storagev1.CSIStorageCapacity) { c.Namespace = "" }, []string{"FieldValueRequired metadata.namespace"}},
		{"bad selector", func(c *storagev1.CSIStorageCapacity) { c.NodeTopology.MatchLabels = map[string]string{"a b": "c"} }, []string{"FieldValueInvalid nodeTopology.matchLabels"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		c := valid()
		tt.mutate(c)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), c))); diff != "" {
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
	r := m["csistoragecapacities"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("ns")
	obj, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := obj.(*storagev1.CSIStorageCapacity).DeepCopy()
	c.StorageClassName = "other"
	if _, _, err := r.Update(ctx, c.Name, rest.DefaultUpdatedObjectInfo(c), nil, nil, false, &metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("class change: %v, want Invalid", err)
	}
	c = obj.(*storagev1.CSIStorageCapacity).DeepCopy()
	q := resource.MustParse("2Gi")
	c.Capacity = &q
	if _, _, err := r.Update(ctx, c.Name, rest.DefaultUpdatedObjectInfo(c), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Errorf("capacity change: %v", err)
	}
}
