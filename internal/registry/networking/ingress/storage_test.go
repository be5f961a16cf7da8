package ingress

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
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
	ing := registrytest.Golden(t, scheme, m["ingresses"].(rest.Creater), "testdata", "minimal").(*networkingv1.Ingress)
	if len(ing.Status.LoadBalancer.Ingress) != 0 || ing.Generation != 1 {
		t.Errorf("create: status=%v generation=%d", ing.Status, ing.Generation)
	}
}

func valid() *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{
			Host: "*.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path:     "/api",
				PathType: ptr.To(networkingv1.PathTypePrefix),
				Backend:  networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Name: "http"}}},
			}}}},
		}}},
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
	path := func(ing *networkingv1.Ingress) *networkingv1.HTTPIngressPath {
		return &ing.Spec.Rules[0].HTTP.Paths[0]
	}
	tests := []struct {
		name   string
		mutate func(*networkingv1.Ingress)
		want   []string
	}{
		{"valid", func(*networkingv1.Ingress) {}, nil},
		{"no rules or backend", func(ing *networkingv1.Ingress) { ing.Spec.Rules = nil }, []string{"FieldValueInvalid spec"}},
		{"ip host", func(ing *networkingv1.Ingress) { ing.Spec.Rules[0].Host = "1.2.3.4" }, []string{"FieldValueInvalid spec.rules[0].host"}},
		{"bad wildcard", func(ing *networkingv1.Ingress) { ing.Spec.Rules[0].Host = "a.*.com" }, []string{"FieldValueInvalid spec.rules[0].host"}},
		{"relative path", func(ing *networkingv1.Ingress) { path(ing).Path = "api" }, []string{"FieldValueInvalid spec.rules[0].http.paths[0].path"}},
		{"no pathType", func(ing *networkingv1.Ingress) { path(ing).PathType = nil }, []string{"FieldValueRequired spec.rules[0].http.paths[0].pathType"}},
		{"bad pathType", func(ing *networkingv1.Ingress) { path(ing).PathType = ptr.To(networkingv1.PathType("Regex")) }, []string{"FieldValueNotSupported spec.rules[0].http.paths[0].pathType"}},
		{"no backend", func(ing *networkingv1.Ingress) { path(ing).Backend = networkingv1.IngressBackend{} }, []string{"FieldValueInvalid spec.rules[0].http.paths[0].backend"}},
		{"two backends", func(ing *networkingv1.Ingress) {
			path(ing).Backend.Resource = &corev1.TypedLocalObjectReference{Kind: "Bucket", Name: "static"}
		}, []string{"FieldValueInvalid spec.rules[0].http.paths[0].backend"}},
		{"no port", func(ing *networkingv1.Ingress) { path(ing).Backend.Service.Port = networkingv1.ServiceBackendPort{} }, []string{"FieldValueRequired spec.rules[0].http.paths[0].backend"}},
		{"bad port", func(ing *networkingv1.Ingress) {
			path(ing).Backend.Service.Port = networkingv1.ServiceBackendPort{Number: 70000}
		}, []string{"FieldValueInvalid spec.rules[0].http.paths[0].backend.service.port.number"}},
		{"class name", func(ing *networkingv1.Ingress) { ing.Spec.IngressClassName = ptr.To("Bad_Class") }, []string{"FieldValueInvalid spec.ingressClassName"}},
		{"class and annotation", func(ing *networkingv1.Ingress) {
			ing.Spec.IngressClassName = ptr.To("nginx")
			ing.Annotations = map[string]string{"kubernetes.io/ingress.class": "nginx"}
		}, []string{"FieldValueInvalid annotations.kubernetes.io/ingress.class"}},
		{"tls secret", func(ing *networkingv1.Ingress) {
			ing.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"www.example.com"}, SecretName: "Bad_Secret"}}
		}, []string{"FieldValueInvalid spec.tls[0].secretName"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		ing := valid()
		tt.mutate(ing)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), ing))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestSpecAndStatus(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	r := m["ingresses"].(rest.StandardStorage)
	status := m["ingresses/status"].(rest.Updater)
	ctx := registrytest.NamespaceContext("ns")
	obj, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	update := func(u rest.Updater, ing *networkingv1.Ingress) *networkingv1.Ingress {
		t.Helper()
		obj, _, err := u.Update(ctx, ing.Name, rest.DefaultUpdatedObjectInfo(ing), nil, nil, false, &metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*networkingv1.Ingress)
	}
	lb := networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}}}

	ing := obj.(*networkingv1.Ingress).DeepCopy()
	ing.Status.LoadBalancer = lb
	ing.Spec.IngressClassName = ptr.To("nginx")
	got := update(status, ing)
	if got.Spec.IngressClassName != nil || len(got.Status.LoadBalancer.Ingress) != 1 || got.Generation != 1 {
		t.Errorf("status update stored spec=%+v status=%+v generation=%d", got.Spec, got.Status, got.Generation)
	}

	ing = got.DeepCopy()
	ing.Status = networkingv1.IngressStatus{}
	ing.Labels = map[string]string{"a": "b"}
	got = update(r, ing)
	if len(got.Status.LoadBalancer.Ingress) != 1 || got.Generation != 1 {
		t.Errorf("label update: status=%+v generation=%d", got.Status, got.Generation)
	}

	ing = got.DeepCopy()
	ing.Spec.IngressClassName = ptr.To("nginx")
	got = update(r, ing)
	if got.Generation != 2 {
		t.Errorf("spec update: generation=%d, want 2", got.Generation)
	}

	ing = got.DeepCopy()
	ing.Status.LoadBalancer.Ingress[0].IP = "not-an-ip"
	if _, _, err := status.Update(ctx, ing.Name, rest.DefaultUpdatedObjectInfo(ing), nil, nil, false, &metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("bad status IP: %v, want Invalid", err)
	}
}

func TestTable(t *testing.T) {
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ing := valid()
	ing.CreationTimestamp = created
	ing.Spec.TLS = []networkingv1.IngressTLS{{}}
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.100"}, {Hostname: "lb.example.com"}}
	table, err := Table().WithClock(func() time.Time { return created.Add(time.Minute) }).ConvertToTable(context.Background(), ing, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"web", "<none>", "*.example.com", "192.0.2.100,l...", "80, 443", "60s"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
}
