package ingressclass

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func TestGolden(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	registrytest.Golden(t, scheme, m["ingressclasses"].(rest.Creater), "testdata", "minimal")
}

func valid() *networkingv1.IngressClass {
	return &networkingv1.IngressClass{
		ObjectMeta: metav1.ObjectMeta{Name: "nginx"},
		Spec: networkingv1.IngressClassSpec{
			Controller: "example.com/ingress",
			Parameters: &networkingv1.IngressClassParametersReference{Kind: "P", Name: "p", Scope: ptr.To("Cluster")},
		},
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
		mutate func(*networkingv1.IngressClass)
		want   []string
	}{
		{"valid", func(*networkingv1.IngressClass) {}, nil},
		{"no controller", func(ic *networkingv1.IngressClass) { ic.Spec.Controller = "" }, []string{"FieldValueRequired spec.controller"}},
		{"controller not domain-prefixed", func(ic *networkingv1.IngressClass) { ic.Spec.Controller = "nginx" }, []string{"FieldValueInvalid spec.controller"}},
		{"parameters without kind", func(ic *networkingv1.IngressClass) { ic.Spec.Parameters.Kind = "" }, []string{"FieldValueRequired spec.parameters.kind"}},
		{"namespace scope without namespace", func(ic *networkingv1.IngressClass) { ic.Spec.Parameters.Scope = ptr.To("Namespace") }, []string{"FieldValueRequired spec.parameters.namespace"}},
		{"cluster scope with namespace", func(ic *networkingv1.IngressClass) { ic.Spec.Parameters.Namespace = ptr.To("ns") }, []string{"FieldValueForbidden spec.parameters.namespace"}},
		{"bad scope", func(ic *networkingv1.IngressClass) { ic.Spec.Parameters.Scope = ptr.To("Node") }, []string{"FieldValueNotSupported spec.parameters.scope"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		ic := valid()
		tt.mutate(ic)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), ic))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestUpdate(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	r := m["ingressclasses"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("")
	obj, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ic := obj.(*networkingv1.IngressClass).DeepCopy()
	ic.Spec.Controller = "example.com/other"
	if _, _, err := r.Update(ctx, ic.Name, rest.DefaultUpdatedObjectInfo(ic), nil, nil, false, &metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("controller change: %v, want Invalid", err)
	}
	ic = obj.(*networkingv1.IngressClass).DeepCopy()
	ic.Spec.Parameters.Name = "q"
	got, _, err := r.Update(ctx, ic.Name, rest.DefaultUpdatedObjectInfo(ic), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil || got.(*networkingv1.IngressClass).Generation != 2 {
		t.Errorf("parameters change: err=%v, want generation 2", err)
	}
}

func TestTable(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ic := valid()
	ic.CreationTimestamp = created
	ic.Spec.Parameters.APIGroup = ptr.To("example.com")
	table, err := Table().WithClock(func() time.Time { return created.Add(time.Minute) }).ConvertToTable(context.Background(), ic, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"nginx", "example.com/ingress", "P.example.com/p", "60s"}, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
