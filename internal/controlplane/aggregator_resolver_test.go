package controlplane

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// TestAggregatorResolver pins --enable-aggregator-routing: with routing
// a ready endpoint's address and target port, without it the Service's
// cluster IP and service port (upstream's ResolveCluster); an
// ExternalName Service resolves to its name either way.
func TestAggregatorResolver(t *testing.T) {
	headless := clusterIPService(443)
	headless.Name, headless.Spec.ClusterIP = "headless", corev1.ClusterIPNone
	external := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ext"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "api.example.com"},
	}
	notReady := endpointSlice(false)
	notReady.Name, notReady.Labels = "unready-x", map[string]string{discoveryv1.LabelServiceName: "unready"}
	unready := clusterIPService(443)
	unready.Name = "unready"
	tests := []struct {
		name, svc string
		routing   bool
		want      string // URL, or "" for an error
	}{
		{name: "routing: endpoint", svc: "svc", routing: true, want: "https://10.1.0.1:8443"},
		{name: "no routing: cluster IP", svc: "svc", routing: false, want: "https://10.0.0.9:443"},
		{name: "routing: external name", svc: "ext", routing: true, want: "https://api.example.com:443"},
		{name: "no routing: external name", svc: "ext", routing: false, want: "https://api.example.com:443"},
		{name: "no routing: headless", svc: "headless", routing: false},
		{name: "routing: no ready endpoint", svc: "unready", routing: true},
		{name: "missing service", svc: "nope", routing: true},
	}
	services := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, s := range []*corev1.Service{clusterIPService(443), headless, external, unready} {
		if err := services.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	inf := cache.NewSharedIndexInformer(&cache.ListWatch{}, &discoveryv1.EndpointSlice{}, 0, cache.Indexers{})
	if err := addEndpointSliceIndex(inf); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*discoveryv1.EndpointSlice{endpointSlice(true), notReady} {
		if err := inf.GetIndexer().Add(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &aggregatorResolver{services: corelisters.NewServiceLister(services), slices: inf.GetIndexer(), routing: tt.routing}
			u, err := r.ResolveEndpoint("ns", tt.svc, 443)
			switch {
			case tt.want == "" && err == nil:
				t.Errorf("resolved to %v, want an error", u)
			case tt.want != "" && err != nil:
				t.Errorf("error %v, want %s", err, tt.want)
			case tt.want != "" && u.String() != tt.want:
				t.Errorf("resolved to %v, want %s", u, tt.want)
			}
		})
	}
}

// TestReadyEndpointsPortName: only the slice port named like the
// Service port counts, an unnamed one for an unnamed service port.
func TestReadyEndpointsPortName(t *testing.T) {
	s := endpointSlice(true)
	s.Ports = append(s.Ports, discoveryv1.EndpointPort{Port: ptr.To[int32](9000)})
	if got := readyEndpoints([]*discoveryv1.EndpointSlice{s}, ""); len(got) != 1 || got[0].Host != "10.1.0.1:9000" {
		t.Errorf("unnamed port: %v", got)
	}
	if got := readyEndpoints([]*discoveryv1.EndpointSlice{s}, "metrics"); len(got) != 0 {
		t.Errorf("unknown port name: %v", got)
	}
}
