package v1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestSetDefaultsService(t *testing.T) {
	cluster := ptr.To(corev1.ServiceInternalTrafficPolicyCluster)
	tests := []struct {
		name string
		in   corev1.ServiceSpec
		want corev1.ServiceSpec
	}{
		{"ClusterIP",
			corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}, {Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromString("dns")}}},
			corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, SessionAffinity: corev1.ServiceAffinityNone, InternalTrafficPolicy: cluster,
				Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(80)}, {Port: 53, Protocol: corev1.ProtocolUDP, TargetPort: intstr.FromString("dns")}}}},
		{"LoadBalancer",
			corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer},
			corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, SessionAffinity: corev1.ServiceAffinityNone, InternalTrafficPolicy: cluster,
				ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyCluster, AllocateLoadBalancerNodePorts: ptr.To(true)}},
		{"ClusterIP with external IPs",
			corev1.ServiceSpec{ExternalIPs: []string{"1.2.3.4"}},
			corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, SessionAffinity: corev1.ServiceAffinityNone, InternalTrafficPolicy: cluster,
				ExternalIPs: []string{"1.2.3.4"}, ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyCluster}},
		{"ExternalName with ClientIP affinity",
			corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, SessionAffinity: corev1.ServiceAffinityClientIP},
			corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, SessionAffinity: corev1.ServiceAffinityClientIP,
				SessionAffinityConfig: &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](10800)}}}},
	}
	for _, tt := range tests {
		svc := &corev1.Service{Spec: tt.in}
		SetDefaultsService(svc)
		if diff := cmp.Diff(tt.want, svc.Spec); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestSetDefaultsEndpoints(t *testing.T) {
	ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{{Port: 80}, {Port: 53, Protocol: corev1.ProtocolUDP}}}}}
	SetDefaultsEndpoints(ep)
	if p := ep.Subsets[0].Ports; p[0].Protocol != corev1.ProtocolTCP || p[1].Protocol != corev1.ProtocolUDP {
		t.Errorf("ports %+v", p)
	}
}
