package controlplane

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

func TestEndpointResolver(t *testing.T) {
	svc := func(name string, mutate func(*corev1.Service)) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443}}}}
		if mutate != nil {
			mutate(s)
		}
		return s
	}
	slice := func(service, name string, ready *bool, addr string, port int32) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: service}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(port)}},
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{addr}, Conditions: discoveryv1.EndpointConditions{Ready: ready}}},
		}
	}
	objs := []runtime.Object{
		svc("hook", nil),
		slice("hook", "hook-a", ptr.To(false), "10.0.0.1", 9443),
		slice("hook", "hook-b", ptr.To(true), "127.0.0.1", 8443),
		svc("ext", func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeExternalName
			s.Spec.ExternalName = "hooks.example.com"
		}),
		svc("empty", nil),
	}
	var r endpointResolver
	if _, err := r.ResolveEndpoint("ns", "hook", 443); err == nil {
		t.Error("resolved before start")
	}
	r.start(fake.NewClientset(objs...))
	for _, tc := range []struct {
		name    string
		port    int32
		want    string
		wantErr string
	}{
		{"hook", 443, "https://127.0.0.1:8443", ""},
		{"ext", 443, "https://hooks.example.com:443", ""},
		{"hook", 80, "", "no service port 80"},
		{"empty", 443, "", "no ready endpoints"},
		{"missing", 443, "", "not found"},
	} {
		u, err := r.ResolveEndpoint("ns", tc.name, tc.port)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s:%d: err = %v, want %q", tc.name, tc.port, err, tc.wantErr)
			}
		case err != nil || u.String() != tc.want:
			t.Errorf("%s:%d = %v, %v; want %s", tc.name, tc.port, u, err, tc.want)
		}
	}
}
