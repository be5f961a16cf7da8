package csinode

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
	registrytest.Golden(t, scheme, m["csinodes"].(rest.Creater), "testdata", "minimal")
}

func valid() *storagev1.CSINode {
	return &storagev1.CSINode{
		ObjectMeta: metav1.ObjectMeta{Name: "node-1"},
		Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
			{Name: "csi.example.com", NodeID: "n1", TopologyKeys: []string{"example.com/zone"}},
		}},
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
		mutate func(*storagev1.CSINode)
		want   []string
	}{
		{"valid", func(*storagev1.CSINode) {}, nil},
		{"no node id", func(n *storagev1.CSINode) { n.Spec.Drivers[0].NodeID = "" }, []string{"FieldValueRequired spec.drivers[0].nodeID"}},
		{"duplicate driver", func(n *storagev1.CSINode) { n.Spec.Drivers = append(n.Spec.Drivers, n.Spec.Drivers[0]) }, []string{"FieldValueDuplicate spec.drivers[1].name"}},
		{"bad topology key", func(n *storagev1.CSINode) { n.Spec.Drivers[0].TopologyKeys = []string{"a b"} }, []string{"FieldValueInvalid spec.drivers[0]"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		n := valid()
		tt.mutate(n)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), n))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestDriverImmutable(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	r := m["csinodes"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("")
	obj, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := obj.(*storagev1.CSINode).DeepCopy()
	n.Spec.Drivers[0].NodeID = "n2"
	if _, _, err := r.Update(ctx, n.Name, rest.DefaultUpdatedObjectInfo(n), nil, nil, false, &metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("driver change: %v, want Invalid", err)
	}
	n = obj.(*storagev1.CSINode).DeepCopy()
	n.Spec.Drivers = append(n.Spec.Drivers, storagev1.CSINodeDriver{Name: "other.example.com", NodeID: "x"})
	if _, _, err := r.Update(ctx, n.Name, rest.DefaultUpdatedObjectInfo(n), nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Errorf("adding a driver: %v", err)
	}
}
