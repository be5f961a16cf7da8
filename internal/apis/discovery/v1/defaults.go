package v1

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// RegisterDefaults adds the defaulting functions of the group version's types to scheme.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&discoveryv1.EndpointSlice{}, func(obj any) {
		SetDefaultsEndpointSlice(obj.(*discoveryv1.EndpointSlice))
	})
	scheme.AddTypeDefaultingFunc(&discoveryv1.EndpointSliceList{}, func(obj any) {
		for i := range obj.(*discoveryv1.EndpointSliceList).Items {
			SetDefaultsEndpointSlice(&obj.(*discoveryv1.EndpointSliceList).Items[i])
		}
	})
	return nil
}

// SetDefaultsEndpointSlice gives each port an empty name and protocol TCP
// when they are left out, as upstream.
func SetDefaultsEndpointSlice(slice *discoveryv1.EndpointSlice) {
	for i := range slice.Ports {
		p := &slice.Ports[i]
		if p.Name == nil {
			p.Name = ptr.To("")
		}
		if p.Protocol == nil {
			p.Protocol = ptr.To(corev1.ProtocolTCP)
		}
	}
}
