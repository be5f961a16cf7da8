package controlplane

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// endpointResolver reaches a webhook's Service through its EndpointSlices,
// as kube-apiserver does with --enable-aggregator-routing: kapi runs no
// service proxy, so a cluster IP would lead nowhere. An ExternalName
// service resolves to its external name. The TLS server name stays
// <name>.<namespace>.svc (the webhook client sets it).
type endpointResolver struct {
	client atomic.Pointer[kubernetes.Interface]
}

// start gives the resolver its client once the server serves.
func (r *endpointResolver) start(c kubernetes.Interface) { r.client.Store(&c) }

func (r *endpointResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	cp := r.client.Load()
	if cp == nil {
		return nil, fmt.Errorf("cannot resolve service %s/%s: the server is not started yet", namespace, name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := *cp
	svc, err := c.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return &url.URL{Scheme: "https", Host: net.JoinHostPort(svc.Spec.ExternalName, strconv.Itoa(int(port)))}, nil
	}
	var svcPort *corev1.ServicePort
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			svcPort = &svc.Spec.Ports[i]
		}
	}
	if svcPort == nil {
		return nil, fmt.Errorf("no service port %d found for service %q", port, name)
	}
	slices, err := c.DiscoveryV1().EndpointSlices(namespace).List(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelServiceName + "=" + name,
	})
	if err != nil {
		return nil, err
	}
	if addr, p, ok := readyEndpoint(slices.Items, svcPort.Name); ok {
		return &url.URL{Scheme: "https", Host: net.JoinHostPort(addr, strconv.Itoa(int(p)))}, nil
	}
	return nil, fmt.Errorf("service %s/%s has no ready endpoints for port %d", namespace, name, port)
}

// readyEndpoint is the first ready address of the slices serving the
// service port named portName, and its port.
func readyEndpoint(slices []discoveryv1.EndpointSlice, portName string) (string, int32, bool) {
	for _, s := range slices {
		for _, p := range s.Ports {
			if p.Port == nil || (p.Name != nil && *p.Name != portName) || (p.Name == nil && portName != "") {
				continue
			}
			for _, e := range s.Endpoints {
				if e.Conditions.Ready != nil && !*e.Conditions.Ready {
					continue
				}
				if len(e.Addresses) > 0 {
					return e.Addresses[0], *p.Port, true
				}
			}
		}
	}
	return "", 0, false
}
