package controlplane

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// endpointSlicesByService indexes EndpointSlices by "<namespace>/<service>"
// (their kubernetes.io/service-name label).
const endpointSlicesByService = "kapi-service"

// addEndpointSliceIndex adds the index the aggregator's resolver and
// availability checks read slices through.
func addEndpointSliceIndex(inf cache.SharedIndexInformer) error {
	return inf.AddIndexers(cache.Indexers{endpointSlicesByService: func(obj any) ([]string, error) {
		s, ok := obj.(*discoveryv1.EndpointSlice)
		if !ok || s.Labels[discoveryv1.LabelServiceName] == "" {
			return nil, nil
		}
		return []string{s.Namespace + "/" + s.Labels[discoveryv1.LabelServiceName]}, nil
	}})
}

// endpointSlicesOf lists the slices of a Service from the index.
func endpointSlicesOf(idx cache.Indexer, namespace, name string) ([]*discoveryv1.EndpointSlice, error) {
	objs, err := idx.ByIndex(endpointSlicesByService, namespace+"/"+name)
	if err != nil {
		return nil, err
	}
	out := make([]*discoveryv1.EndpointSlice, 0, len(objs))
	for _, o := range objs {
		if s, ok := o.(*discoveryv1.EndpointSlice); ok {
			out = append(out, s)
		}
	}
	return out, nil
}

// aggregatorResolver resolves the Service of a remote APIService from
// informer caches, per --enable-aggregator-routing: with routing, to a
// ready endpoint of the Service picked at random (kube-apiserver's
// ResolveEndpoint, what kapi needs without a service proxy); without,
// to the Service's cluster IP (upstream's ResolveCluster), which only a
// service proxy on kapi's host makes reachable. An ExternalName Service
// resolves to its external name either way.
type aggregatorResolver struct {
	services corelisters.ServiceLister
	slices   cache.Indexer
	// routing is --enable-aggregator-routing.
	routing bool
}

func (r *aggregatorResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	svc, err := r.services.Services(namespace).Get(name)
	if err != nil {
		return nil, err
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return httpsURL(svc.Spec.ExternalName, port), nil
	}
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer:
	default:
		return nil, fmt.Errorf("unsupported service type %q", svc.Spec.Type)
	}
	svcPort := servicePort(svc, port)
	if svcPort == nil {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", port, svc.Name))
	}
	if !r.routing {
		if svc.Spec.ClusterIP == corev1.ClusterIPNone {
			return nil, fmt.Errorf(`cannot route to service with ClusterIP "None"`)
		}
		return httpsURL(svc.Spec.ClusterIP, svcPort.Port), nil
	}
	slices, err := endpointSlicesOf(r.slices, namespace, name)
	if err != nil {
		return nil, err
	}
	urls := readyEndpoints(slices, svcPort.Name)
	if len(urls) == 0 {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", name))
	}
	return urls[rand.IntN(len(urls))], nil
}

func servicePort(svc *corev1.Service, port int32) *corev1.ServicePort {
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			return &svc.Spec.Ports[i]
		}
	}
	return nil
}

// readyEndpoints are the URLs of the ready (or not known unready)
// addresses of slices on the port named portName.
func readyEndpoints(slices []*discoveryv1.EndpointSlice, portName string) []*url.URL {
	var out []*url.URL
	for _, s := range slices {
		for _, p := range s.Ports {
			if p.Port == nil || ptrString(p.Name) != portName {
				continue
			}
			for _, e := range s.Endpoints {
				if e.Conditions.Ready != nil && !*e.Conditions.Ready {
					continue
				}
				for _, a := range e.Addresses {
					out = append(out, httpsURL(a, *p.Port))
				}
			}
		}
	}
	return out
}

func ptrString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func httpsURL(host string, port int32) *url.URL {
	return &url.URL{Scheme: "https", Host: net.JoinHostPort(host, strconv.Itoa(int(port)))}
}
