package controllerrevision

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/apps/appstest"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newStorage(t *testing.T) (*runtime.Scheme, map[string]rest.Storage, context.Context) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	s, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewStorage: %v", err)
	}
	return scheme, s, registrytest.NamespaceContext("ns")
}

func valid() *appsv1.ControllerRevision {
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "ns"},
		Data:       runtime.RawExtension{Raw: []byte(`{"spec":{}}`)},
		Revision:   1,
	}
}

func TestGolden(t *testing.T) {
	scheme, s, _ := newStorage(t)
	obj := registrytest.Golden(t, scheme, s["controllerrevisions"].(rest.Creater), "testdata", "minimal")
	if cr := obj.(*appsv1.ControllerRevision); cr.Generation != 0 || cr.Revision != 1 {
		t.Errorf("generation = %d, revision = %d; want 0 and 1", cr.Generation, cr.Revision)
	}
}

func TestCreateInvalid(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*appsv1.ControllerRevision)
		want   []string
	}{
		{"no data", func(cr *appsv1.ControllerRevision) { cr.Data = runtime.RawExtension{} }, []string{"data FieldValueRequired"}},
		{"negative revision", func(cr *appsv1.ControllerRevision) { cr.Revision = -1 }, []string{"revision FieldValueInvalid"}},
		{"bad name", func(cr *appsv1.ControllerRevision) { cr.Name = "Web_1" }, []string{"metadata.name FieldValueInvalid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, s, ctx := newStorage(t)
			cr := valid()
			tt.mutate(cr)
			_, err := appstest.Create(ctx, scheme, s["controllerrevisions"], cr)
			if diff := cmp.Diff(tt.want, appstest.Causes(t, err)); diff != "" {
				t.Errorf("causes (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	tests := []struct {
		name       string
		mutate     func(*appsv1.ControllerRevision)
		wantCauses []string
	}{
		{"revision may change", func(cr *appsv1.ControllerRevision) { cr.Revision = 4 }, nil},
		{"labels may change", func(cr *appsv1.ControllerRevision) { cr.Labels = map[string]string{"a": "b"} }, nil},
		{"data immutable", func(cr *appsv1.ControllerRevision) { cr.Data = runtime.RawExtension{Raw: []byte(`{"spec":{"x":1}}`)} },
			[]string{"data FieldValueInvalid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme, s, ctx := newStorage(t)
			obj, err := appstest.Create(ctx, scheme, s["controllerrevisions"], valid())
			if err != nil {
				t.Fatal(err)
			}
			cr := obj.(*appsv1.ControllerRevision).DeepCopy()
			tt.mutate(cr)
			_, err = appstest.Update(ctx, s["controllerrevisions"], "web-1", cr)
			if tt.wantCauses == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(tt.wantCauses, appstest.Causes(t, err)); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTable(t *testing.T) {
	owned := valid()
	owned.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "u", Controller: ptr.To(true)}}
	tests := []struct {
		cr   *appsv1.ControllerRevision
		want []any
	}{
		{valid(), []any{"web-1", "<none>", int64(1), "<unknown>"}},
		{owned, []any{"web-1", "statefulset.apps/web", int64(1), "<unknown>"}},
	}
	for _, tt := range tests {
		table, err := Table().ConvertToTable(context.Background(), tt.cr, nil)
		if err != nil {
			t.Fatal(err)
		}
		names, _ := appstest.ColumnNames(table)
		if diff := cmp.Diff([]string{"Name", "Controller", "Revision", "Age"}, names); diff != "" {
			t.Errorf("columns (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(tt.want, table.Rows[0].Cells); diff != "" {
			t.Errorf("cells (-want +got):\n%s", diff)
		}
	}
}
