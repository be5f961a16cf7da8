package validation

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// pathsAndTypes renders errors as "path: type", sorted.
func pathsAndTypes(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Field+": "+string(e.Type))
	}
	slices.Sort(out)
	return out
}

func validService(mutate func(*corev1.Service)) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: corev1.ServiceSpec{
			Type:                  corev1.ServiceTypeClusterIP,
			ClusterIP:             "10.0.0.10",
			ClusterIPs:            []string{"10.0.0.10"},
			IPFamilies:            []corev1.IPFamily{corev1.IPv4Protocol},
			IPFamilyPolicy:        ptr.To(corev1.IPFamilyPolicySingleStack),
			Selector:              map[string]string{"app": "web"},
			SessionAffinity:       corev1.ServiceAffinityNone,
			InternalTrafficPolicy: ptr.To(corev1.ServiceInternalTrafficPolicyCluster),
			Ports:                 []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(80)}},
		},
	}
	if mutate != nil {
		mutate(svc)
	}
	return svc
}

func TestValidateService(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*corev1.Service)
		want   []string
	}{
		{"valid", nil, nil},
		{"name not a DNS-1035 label", func(s *corev1.Service) { s.Name = "1web" }, []string{"metadata.name: FieldValueInvalid"}},
		{"no ports", func(s *corev1.Service) { s.Spec.Ports = nil }, []string{"spec.ports: FieldValueRequired"}},
		{"headless without ports", func(s *corev1.Service) {
			s.Spec.Ports, s.Spec.ClusterIP, s.Spec.ClusterIPs = nil, "None", []string{"None"}
		}, nil},
		{"port out of range", func(s *corev1.Service) { s.Spec.Ports[0].Port = 0 }, []string{"spec.ports[0].port: FieldValueInvalid"}},
		{"second port unnamed", func(s *corev1.Service) {
			s.Spec.Ports[0].Name = "http"
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Port: 81, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(81)})
		}, []string{"spec.ports[1].name: FieldValueRequired"}},
		{"duplicate port names", func(s *corev1.Service) {
			s.Spec.Ports[0].Name = "http"
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "http", Port: 81, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(81)})
		}, []string{"spec.ports[1].name: FieldValueDuplicate"}},
		{"bad protocol", func(s *corev1.Service) { s.Spec.Ports[0].Protocol = "HTTP" }, []string{"spec.ports[0].protocol: FieldValueNotSupported"}},
		{"bad target port name", func(s *corev1.Service) { s.Spec.Ports[0].TargetPort = intstr.FromString("Not_Valid") }, []string{"spec.ports[0].targetPort: FieldValueInvalid"}},
		{"bad type", func(s *corev1.Service) { s.Spec.Type = "Magic" }, []string{"spec.type: FieldValueNotSupported"}},
		{"bad selector", func(s *corev1.Service) { s.Spec.Selector = map[string]string{"a b": "c"} }, []string{"spec.selector: FieldValueInvalid"}},
		{"nodePort on ClusterIP", func(s *corev1.Service) { s.Spec.Ports[0].NodePort = 30000 }, []string{"spec.ports[0].nodePort: FieldValueForbidden"}},
		{"clusterIPs disagree", func(s *corev1.Service) { s.Spec.ClusterIPs = []string{"10.0.0.11"} }, []string{"spec.clusterIPs: FieldValueInvalid"}},
		{"bad clusterIP", func(s *corev1.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.0.0.300", []string{"10.0.0.300"} }, []string{"spec.clusterIPs[0]: FieldValueInvalid"}},
		{"bad session affinity", func(s *corev1.Service) { s.Spec.SessionAffinity = "Sticky" }, []string{"spec.sessionAffinity: FieldValueNotSupported"}},
		{"affinity config without ClientIP", func(s *corev1.Service) {
			s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{}
		}, []string{"spec.sessionAffinityConfig: FieldValueInvalid"}},
		{"bad family policy", func(s *corev1.Service) { s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicy("Any")) }, []string{"spec.ipFamilyPolicy: FieldValueNotSupported"}},
		{"bad family", func(s *corev1.Service) { s.Spec.IPFamilies = []corev1.IPFamily{"IPv5"} }, []string{"spec.ipFamilies[0]: FieldValueNotSupported"}},
		{"external traffic policy on ClusterIP", func(s *corev1.Service) {
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
		}, []string{"spec.externalTrafficPolicy: FieldValueInvalid"}},
		{"NodePort without external policy", func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort }, []string{"spec.externalTrafficPolicy: FieldValueRequired"}},
		{"NodePort headless", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.ExternalTrafficPolicy = corev1.ServiceTypeNodePort, corev1.ServiceExternalTrafficPolicyCluster
			s.Spec.ClusterIP, s.Spec.ClusterIPs = "None", []string{"None"}
		}, []string{"spec.clusterIPs[0]: FieldValueInvalid"}},
		{"node port out of range", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.ExternalTrafficPolicy = corev1.ServiceTypeNodePort, corev1.ServiceExternalTrafficPolicyCluster
			s.Spec.Ports[0].NodePort = 70000
		}, []string{"spec.ports[0].nodePort: FieldValueInvalid"}},
		{"LoadBalancer without allocate flag", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.ExternalTrafficPolicy = corev1.ServiceTypeLoadBalancer, corev1.ServiceExternalTrafficPolicyCluster
		}, []string{"spec.allocateLoadBalancerNodePorts: FieldValueRequired"}},
		{"source ranges on ClusterIP", func(s *corev1.Service) { s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8"} }, []string{"spec.loadBalancerSourceRanges: FieldValueForbidden"}},
		{"missing internal traffic policy", func(s *corev1.Service) { s.Spec.InternalTrafficPolicy = nil }, []string{"spec.internalTrafficPolicy: FieldValueRequired"}},
		{"ExternalName", func(s *corev1.Service) {
			s.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com.", SessionAffinity: corev1.ServiceAffinityNone}
		}, nil},
		{"ExternalName without name", func(s *corev1.Service) {
			s.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, SessionAffinity: corev1.ServiceAffinityNone}
		}, []string{"spec.externalName: FieldValueRequired"}},
		{"ExternalName not DNS", func(s *corev1.Service) {
			s.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "not dns", SessionAffinity: corev1.ServiceAffinityNone}
		}, []string{"spec.externalName: FieldValueInvalid"}},
		{"ExternalName with clusterIP", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.ExternalName = corev1.ServiceTypeExternalName, "example.com"
			s.Spec.IPFamilies, s.Spec.IPFamilyPolicy, s.Spec.InternalTrafficPolicy = nil, nil, nil
		}, []string{"spec.clusterIPs: FieldValueForbidden"}},
		{"loopback external IP", func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"127.0.0.1"} }, []string{
			"spec.externalIPs[0]: FieldValueInvalid", "spec.externalTrafficPolicy: FieldValueRequired"}},
	}
	for _, tt := range tests {
		got := pathsAndTypes(ValidateService(validService(tt.mutate)))
		if tt.want == nil {
			tt.want = []string{}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestValidateServiceUpdate(t *testing.T) {
	old := validService(nil)
	old.ResourceVersion = "1"
	tests := []struct {
		name   string
		mutate func(*corev1.Service)
		want   []string
	}{
		{"unchanged", nil, nil},
		{"clusterIP changed", func(s *corev1.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.0.0.11", []string{"10.0.0.11"} }, []string{"spec.clusterIPs[0]: FieldValueInvalid"}},
		{"to headless", func(s *corev1.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = "None", []string{"None"} }, []string{"spec.clusterIPs[0]: FieldValueInvalid"}},
		{"to ExternalName", func(s *corev1.Service) {
			s.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.com", SessionAffinity: corev1.ServiceAffinityNone}
		}, nil},
		{"namespace changed", func(s *corev1.Service) { s.Namespace = "other" }, []string{"metadata.namespace: FieldValueInvalid"}},
	}
	for _, tt := range tests {
		svc := validService(tt.mutate)
		svc.ResourceVersion = "1"
		got := pathsAndTypes(ValidateServiceUpdate(svc, old))
		if tt.want == nil {
			tt.want = []string{}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	// The message users see names the immutable clusterIPs.
	changed := validService(func(s *corev1.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.0.0.11", []string{"10.0.0.11"} })
	changed.ResourceVersion = "1"
	errs := ValidateServiceUpdate(changed, old)
	if len(errs) != 1 || errs[0].Detail != "may not change once set" {
		t.Errorf("errors %v", errs)
	}
}

func TestValidateServiceStatusUpdate(t *testing.T) {
	old := validService(nil)
	svc := validService(nil)
	svc.ResourceVersion = "1"
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "bad"}, {Hostname: "1.2.3.4"}, {Hostname: "lb.example.com", IPMode: ptr.To(corev1.LoadBalancerIPModeVIP)}}
	want := []string{
		"status.loadBalancer.ingress[0].ip: FieldValueInvalid",
		"status.loadBalancer.ingress[1].hostname: FieldValueInvalid",
		"status.loadBalancer.ingress[2].ipMode: FieldValueForbidden",
	}
	if diff := cmp.Diff(want, pathsAndTypes(ValidateServiceStatusUpdate(svc, old))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValidateEndpoints(t *testing.T) {
	valid := func(mutate func(*corev1.Endpoints)) *corev1.Endpoints {
		ep := &corev1.Endpoints{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
			Subsets: []corev1.EndpointSubset{{
				Addresses: []corev1.EndpointAddress{{IP: "10.1.2.3"}},
				Ports:     []corev1.EndpointPort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}},
			}},
		}
		if mutate != nil {
			mutate(ep)
		}
		return ep
	}
	tests := []struct {
		name   string
		mutate func(*corev1.Endpoints)
		want   []string
	}{
		{"valid", nil, nil},
		{"no addresses", func(e *corev1.Endpoints) { e.Subsets[0].Addresses = nil }, []string{"subsets[0]: FieldValueRequired"}},
		{"bad ip", func(e *corev1.Endpoints) { e.Subsets[0].Addresses[0].IP = "nope" }, []string{"subsets[0].addresses[0].ip: FieldValueInvalid"}},
		{"loopback ip", func(e *corev1.Endpoints) {
			e.Subsets[0].NotReadyAddresses = []corev1.EndpointAddress{{IP: "127.0.0.1"}}
		}, []string{"subsets[0].notReadyAddresses[0].ip: FieldValueInvalid"}},
		{"bad hostname", func(e *corev1.Endpoints) { e.Subsets[0].Addresses[0].Hostname = "A_B" }, []string{"subsets[0].addresses[0].hostname: FieldValueInvalid"}},
		{"bad port", func(e *corev1.Endpoints) { e.Subsets[0].Ports[0].Port = 0 }, []string{"subsets[0].ports[0].port: FieldValueInvalid"}},
		{"bad protocol", func(e *corev1.Endpoints) { e.Subsets[0].Ports[0].Protocol = "ICMP" }, []string{"subsets[0].ports[0].protocol: FieldValueNotSupported"}},
		{"unnamed second port", func(e *corev1.Endpoints) {
			e.Subsets[0].Ports = append(e.Subsets[0].Ports, corev1.EndpointPort{Port: 81, Protocol: corev1.ProtocolTCP})
		}, []string{"subsets[0].ports[1].name: FieldValueRequired"}},
	}
	for _, tt := range tests {
		got := pathsAndTypes(ValidateEndpoints(valid(tt.mutate)))
		if tt.want == nil {
			tt.want = []string{}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	old := valid(nil)
	moved := valid(func(e *corev1.Endpoints) { e.Name = "other" })
	if got := pathsAndTypes(ValidateEndpointsUpdate(moved, old)); !slices.Contains(got, "metadata.name: FieldValueInvalid") {
		t.Errorf("rename: %v", got)
	}
}
