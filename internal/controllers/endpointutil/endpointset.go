package endpointutil

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// EndpointSet holds slice endpoints by identity: their addresses,
// hostname and target (upstream's endpoint hash), so that an endpoint
// whose conditions changed is the same endpoint, updated in place.
type EndpointSet map[string]*discoveryv1.Endpoint

// endpointKey is an endpoint's identity.
func endpointKey(ep *discoveryv1.Endpoint) string {
	addrs := slices.Sorted(slices.Values(ep.Addresses))
	var b strings.Builder
	b.WriteString(strings.Join(addrs, ","))
	b.WriteByte('|')
	if ep.Hostname != nil {
		b.WriteString(*ep.Hostname)
	}
	b.WriteByte('|')
	if ep.TargetRef != nil {
		b.WriteString(ep.TargetRef.Namespace + "/" + ep.TargetRef.Name)
	}
	return b.String()
}

// Insert adds or replaces ep.
func (s EndpointSet) Insert(ep *discoveryv1.Endpoint) { s[endpointKey(ep)] = ep }

// Get returns the endpoint with ep's identity, or nil.
func (s EndpointSet) Get(ep *discoveryv1.Endpoint) *discoveryv1.Endpoint { return s[endpointKey(ep)] }

// Delete removes the endpoint with ep's identity.
func (s EndpointSet) Delete(ep *discoveryv1.Endpoint) { delete(s, endpointKey(ep)) }

// PopFirst removes and returns the endpoint with the smallest identity,
// so that slices fill in a stable order.
func (s EndpointSet) PopFirst() *discoveryv1.Endpoint {
	var first string
	for k := range s {
		if first == "" || k < first {
			first = k
		}
	}
	ep := s[first]
	delete(s, first)
	return ep
}

// semantic compares API objects, nil and empty alike, ignoring the
// resourceVersion in object references: a Pod's resourceVersion is not
// part of its endpoint.
var semantic = conversion.EqualitiesOrDie(func(a, b corev1.ObjectReference) bool {
	a.ResourceVersion, b.ResourceVersion = "", ""
	return a == b
})

// SemanticEqual is apimachinery's semantic equality with references
// compared without their resourceVersion.
func SemanticEqual(a, b any) bool { return semantic.DeepEqual(a, b) }

// EndpointsEqualBeyondKey compares what an endpoint's identity leaves
// out: node, zone, conditions and target.
func EndpointsEqualBeyondKey(a, b *discoveryv1.Endpoint) bool {
	return SemanticEqual(a.NodeName, b.NodeName) && SemanticEqual(a.Zone, b.Zone) &&
		SemanticEqual(a.Conditions, b.Conditions) && SemanticEqual(a.TargetRef, b.TargetRef)
}

// PortsKey identifies a set of slice ports whatever their order.
func PortsKey(ports []discoveryv1.EndpointPort) string {
	keys := make([]string, 0, len(ports))
	for _, p := range ports {
		keys = append(keys, fmt.Sprintf("%s/%s/%d/%s", deref(p.Name), deref(p.Protocol), deref(p.Port), deref(p.AppProtocol)))
	}
	slices.Sort(keys)
	return strings.Join(keys, ";")
}

// SortPorts orders slice ports as PortsKey does.
func SortPorts(ports []discoveryv1.EndpointPort) {
	slices.SortFunc(ports, func(a, b discoveryv1.EndpointPort) int {
		return cmp.Or(cmp.Compare(deref(a.Name), deref(b.Name)), cmp.Compare(deref(a.Protocol), deref(b.Protocol)), cmp.Compare(deref(a.Port), deref(b.Port)))
	})
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// SlicePrefix is the generateName of a Service's slices: "<name>-", or
// the name alone when the dash would make it too long.
func SlicePrefix(name string) string {
	if len(validation.NameIsDNSSubdomain(name+"-", true)) != 0 {
		return name
	}
	return name + "-"
}

// SliceFromDeleteAction unwraps a deleted EndpointSlice.
func SliceFromDeleteAction(obj any) *discoveryv1.EndpointSlice {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	s, _ := obj.(*discoveryv1.EndpointSlice)
	return s
}

// ServiceKeyOfSlice is the namespace/name of the Service a slice names,
// or "" when it names none.
func ServiceKeyOfSlice(slice *discoveryv1.EndpointSlice) string {
	name := slice.Labels[discoveryv1.LabelServiceName]
	if name == "" {
		return ""
	}
	return slice.Namespace + "/" + name
}

// OwnedBy says whether a slice's owners include the object with uid of
// kind (apiVersion v1).
func OwnedBy(slice *discoveryv1.EndpointSlice, kind string, uid types.UID) bool {
	for _, o := range slice.OwnerReferences {
		if o.Kind == kind && o.APIVersion == "v1" && o.UID == uid {
			return true
		}
	}
	return false
}
