package defaultingressclass

import (
	"context"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	networkinglisters "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission"
)

func class(name string, age time.Duration, isDefault string) *networkingv1.IngressClass {
	c := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(time.Unix(1_000_000, 0).Add(-age))}}
	if isDefault != "" {
		c.Annotations = map[string]string{networkingv1.AnnotationIsDefaultIngressClass: isDefault}
	}
	return c
}

func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		classes []*networkingv1.IngressClass
		ing     *networkingv1.Ingress
		want    *string
	}{
		{"no default", []*networkingv1.IngressClass{class("a", 0, ""), class("b", 0, "false")}, &networkingv1.Ingress{}, nil},
		{"one default", []*networkingv1.IngressClass{class("nginx", 0, "true"), class("b", 0, "")}, &networkingv1.Ingress{}, ptr.To("nginx")},
		{"several defaults: the newest", []*networkingv1.IngressClass{class("old", time.Hour, "true"), class("new", time.Second, "true")}, &networkingv1.Ingress{}, ptr.To("new")},
		{"class given", []*networkingv1.IngressClass{class("nginx", 0, "true")}, &networkingv1.Ingress{Spec: networkingv1.IngressSpec{IngressClassName: ptr.To("")}}, ptr.To("")},
		{"legacy annotation", []*networkingv1.IngressClass{class("nginx", 0, "true")},
			&networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"kubernetes.io/ingress.class": "foo"}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			for _, c := range tt.classes {
				if err := idx.Add(c); err != nil {
					t.Fatal(err)
				}
			}
			p := New(networkinglisters.NewIngressClassLister(idx))
			a := &admission.Attributes{Namespace: "ns", Operation: admission.Create,
				Resource: networkingv1.SchemeGroupVersion.WithResource("ingresses"), Object: tt.ing}
			if err := p.Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			got := tt.ing.Spec.IngressClassName
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("ingressClassName = %v, want %v", ptr.Deref(got, "<nil>"), ptr.Deref(tt.want, "<nil>"))
			}
		})
	}
}
