package networkpolicy

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
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
	np := registrytest.Golden(t, scheme, m["networkpolicies"].(rest.Creater), "testdata", "minimal").(*networkingv1.NetworkPolicy)
	want := []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}
	if diff := cmp.Diff(want, np.Spec.PolicyTypes); diff != "" || *np.Spec.Ingress[0].Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("defaults: policyTypes (-want +got):\n%s protocol %v", diff, np.Spec.Ingress[0].Ports[0].Protocol)
	}
}

func valid() *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "np", Namespace: "ns"},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(80))}},
				From:  []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8", Except: []string{"10.1.0.0/16"}}}},
			}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
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
	rule := func(np *networkingv1.NetworkPolicy) *networkingv1.NetworkPolicyIngressRule {
		return &np.Spec.Ingress[0]
	}
	tests := []struct {
		name   string
		mutate func(*networkingv1.NetworkPolicy)
		want   []string
	}{
		{"valid", func(*networkingv1.NetworkPolicy) {}, nil},
		{"bad selector", func(np *networkingv1.NetworkPolicy) { np.Spec.PodSelector.MatchLabels = map[string]string{"a b": "c"} }, []string{"FieldValueInvalid spec.podSelector.matchLabels"}},
		{"protocol", func(np *networkingv1.NetworkPolicy) { rule(np).Ports[0].Protocol = ptr.To(corev1.Protocol("ICMP")) }, []string{"FieldValueNotSupported spec.ingress[0].ports[0].protocol"}},
		{"port", func(np *networkingv1.NetworkPolicy) { rule(np).Ports[0].Port = ptr.To(intstr.FromInt32(0)) }, []string{"FieldValueInvalid spec.ingress[0].ports[0].port"}},
		{"endPort below port", func(np *networkingv1.NetworkPolicy) { rule(np).Ports[0].EndPort = ptr.To[int32](79) }, []string{"FieldValueInvalid spec.ingress[0].ports[0].endPort"}},
		{"empty peer", func(np *networkingv1.NetworkPolicy) { rule(np).From[0].IPBlock = nil }, []string{"FieldValueRequired spec.ingress[0].from[0]"}},
		{"ipBlock and selector", func(np *networkingv1.NetworkPolicy) { rule(np).From[0].PodSelector = &metav1.LabelSelector{} }, []string{"FieldValueForbidden spec.ingress[0].from[0]"}},
		{"bad cidr", func(np *networkingv1.NetworkPolicy) { rule(np).From[0].IPBlock.CIDR = "10.0.0.0" }, []string{"FieldValueInvalid spec.ingress[0].from[0].ipBlock.cidr"}},
		{"except outside cidr", func(np *networkingv1.NetworkPolicy) { rule(np).From[0].IPBlock.Except = []string{"192.168.0.0/16"} }, []string{"FieldValueInvalid spec.ingress[0].from[0].ipBlock.except[0]"}},
		{"policy type", func(np *networkingv1.NetworkPolicy) { np.Spec.PolicyTypes = []networkingv1.PolicyType{"Both"} }, []string{"FieldValueNotSupported spec.policyTypes[0]"}},
	}
	s := NewStrategy(registrytest.NewScheme(t))
	for _, tt := range tests {
		np := valid()
		tt.mutate(np)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), np))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestGeneration(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	m, err := NewStorage(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatal(err)
	}
	r := m["networkpolicies"].(rest.StandardStorage)
	ctx := registrytest.NamespaceContext("ns")
	obj, err := r.Create(ctx, valid(), rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	np := obj.(*networkingv1.NetworkPolicy).DeepCopy()
	np.Labels = map[string]string{"a": "b"}
	obj, _, err = r.Update(ctx, np.Name, rest.DefaultUpdatedObjectInfo(np), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil || obj.(*networkingv1.NetworkPolicy).Generation != 1 {
		t.Fatalf("label update: err=%v generation=%d, want 1", err, obj.(*networkingv1.NetworkPolicy).Generation)
	}
	np = obj.(*networkingv1.NetworkPolicy).DeepCopy()
	np.Spec.PodSelector.MatchLabels["tier"] = "backend"
	obj, _, err = r.Update(ctx, np.Name, rest.DefaultUpdatedObjectInfo(np), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil || obj.(*networkingv1.NetworkPolicy).Generation != 2 {
		t.Errorf("spec update: err=%v generation=%d, want 2", err, obj.(*networkingv1.NetworkPolicy).Generation)
	}
}
