package limitrange

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestStorage(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	storage, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	store := storage["limitranges"].(*generic.Store)
	lr := registrytest.Golden(t, scheme, store, "testdata", "limitrange").(*corev1.LimitRange)
	if got := lr.Spec.Limits[0].DefaultRequest.Cpu().String(); got != "2" {
		t.Errorf("defaultRequest cpu = %s, want the default limit 2", got)
	}
	if !store.NamespaceScoped() || !cmp.Equal(store.ShortNames(), []string{"limits"}) {
		t.Errorf("namespaced=%v short names=%v", store.NamespaceScoped(), store.ShortNames())
	}

	ctx := registrytest.NamespaceContext("ns")
	q := resource.MustParse
	tests := []struct {
		name   string
		item   corev1.LimitRangeItem
		causes []string
	}{
		{"min above max", corev1.LimitRangeItem{Type: "Pod", Min: corev1.ResourceList{"cpu": q("2")}, Max: corev1.ResourceList{"cpu": q("1")}}, []string{"spec.limits[0].min[cpu]"}},
		{"bad type", corev1.LimitRangeItem{Type: "Namespace"}, []string{"spec.limits[0].type"}},
		{"bad resource", corev1.LimitRangeItem{Type: "Container", Max: corev1.ResourceList{"pods": q("1")}}, []string{"spec.limits[0].max[pods]"}},
	}
	for _, tt := range tests {
		obj := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: "ns"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{tt.item}}}
		_, err := store.Create(ctx, obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Errorf("%s: %v, want Invalid", tt.name, err)
			continue
		}
		var got []string
		for _, c := range err.(apierrors.APIStatus).Status().Details.Causes {
			got = append(got, c.Field)
		}
		if diff := cmp.Diff(tt.causes, got); diff != "" {
			t.Errorf("%s causes (-want +got):\n%s", tt.name, diff)
		}
	}

	// A limit range without a name gets one.
	obj, err := store.Create(ctx, &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}}, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil || obj.(*corev1.LimitRange).Name == "" {
		t.Errorf("nameless create: %v, %v", obj, err)
	}

	lr.CreationTimestamp = registrytest.GoldenTime
	table, err := Table().ConvertToTable(context.Background(), lr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{"limits", "2026-01-01T00:00:00Z"}; !cmp.Equal(want, table.Rows[0].Cells) {
		t.Errorf("cells = %v, want %v", table.Rows[0].Cells, want)
	}
}
