package runtimeclass

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func errorPaths(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	return out
}

func newStore(t *testing.T) rest.StandardStorage {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	return storage["runtimeclasses"].(rest.StandardStorage)
}

func TestGolden(t *testing.T) {
	registrytest.Golden(t, registrytest.NewScheme(t), newStore(t), "testdata", "runtimeclass")
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		rc   nodev1.RuntimeClass
		want []string
	}{
		{"valid", nodev1.RuntimeClass{Handler: "runc"}, nil},
		{"no handler", nodev1.RuntimeClass{}, []string{"FieldValueInvalid handler"}},
		{"handler not a DNS label", nodev1.RuntimeClass{Handler: "Run.C"}, []string{"FieldValueInvalid handler"}},
		{"negative overhead", nodev1.RuntimeClass{Handler: "runc", Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{"cpu": resource.MustParse("-1")}}},
			[]string{"FieldValueInvalid overhead.limits[cpu]"}},
		{"bad scheduling", nodev1.RuntimeClass{Handler: "runc", Scheduling: &nodev1.Scheduling{
			NodeSelector: map[string]string{"a": "b c"},
			Tolerations:  []corev1.Toleration{{Operator: corev1.TolerationOpEqual}},
		}}, []string{"FieldValueInvalid scheduling.nodeSelector", "FieldValueInvalid scheduling.tolerations[0].operator"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		tt.rc.Name = "rc"
		got := errorPaths(s.Validate(context.Background(), &tt.rc))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestHandlerImmutable(t *testing.T) {
	store := newStore(t)
	ctx := context.Background()
	created, err := store.Create(ctx, &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "rc"}, Handler: "runc"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	changed := created.(*nodev1.RuntimeClass).DeepCopy()
	changed.Handler = "crun"
	_, _, err = store.Update(ctx, "rc", rest.DefaultUpdatedObjectInfo(changed), nil, nil, false, nil)
	if !apierrors.IsInvalid(err) {
		t.Fatalf("changing handler: %v, want Invalid", err)
	}
	if causes := err.(apierrors.APIStatus).Status().Details.Causes; len(causes) != 1 || causes[0].Field != "handler" {
		t.Errorf("causes = %+v", causes)
	}
}

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	rc := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "rc", CreationTimestamp: metav1.NewTime(now.Add(-24 * time.Hour))}, Handler: "runc"}
	table, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), rc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"rc", "runc", "24h"}, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
