package e2e

import (
	"net"
	"net/url"
	"strconv"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// TestKubernetesServiceEndpoints: kapi listening on loopback without
// --advertise-address advertises the host's default-route address, as
// kube-apiserver does, so the default/kubernetes Service has Endpoints
// and an EndpointSlice pointing at it. On a host without a default route
// there is no such address, and neither object exists.
func TestKubernetesServiceEndpoints(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	cs := k.Clientset()
	ctx := t.Context()
	u, err := url.Parse(k.URL())
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}

	host, hostErr := utilnet.ResolveBindAddress(net.ParseIP("127.0.0.1"))
	if hostErr != nil {
		t.Logf("no default route on this host (%v): expecting no endpoints", hostErr)
		if _, err := cs.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("endpoints default/kubernetes: %v, want NotFound", err)
		}
		return
	}

	// The bootstrap hook writes them before /readyz turns green; the
	// wait only covers a slow first reconcile.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, errEp := cs.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		_, errSlice := cs.DiscoveryV1().EndpointSlices("default").Get(ctx, "kubernetes", metav1.GetOptions{})
		if (errEp == nil && errSlice == nil) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	ep, err := cs.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("endpoints default/kubernetes: %v", err)
	}
	if len(ep.Subsets) != 1 || len(ep.Subsets[0].Addresses) != 1 || len(ep.Subsets[0].Ports) != 1 {
		t.Fatalf("endpoints subsets %+v, want one address and one port", ep.Subsets)
	}
	if got := ep.Subsets[0].Addresses[0].IP; got != host.String() {
		t.Errorf("endpoints address %s, want the host's %s", got, host)
	}
	if p := ep.Subsets[0].Ports[0]; p.Name != "https" || int(p.Port) != port {
		t.Errorf("endpoints port %+v, want https %d", p, port)
	}

	slice, err := cs.DiscoveryV1().EndpointSlices("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("endpointslice default/kubernetes: %v", err)
	}
	if len(slice.Endpoints) != 1 || len(slice.Endpoints[0].Addresses) != 1 || slice.Endpoints[0].Addresses[0] != host.String() {
		t.Errorf("endpointslice endpoints %+v, want %s", slice.Endpoints, host)
	}
	if len(slice.Ports) != 1 || slice.Ports[0].Port == nil || int(*slice.Ports[0].Port) != port {
		t.Errorf("endpointslice ports %+v, want %d", slice.Ports, port)
	}
	if slice.Labels["kubernetes.io/service-name"] != "kubernetes" {
		t.Errorf("endpointslice labels %v", slice.Labels)
	}

	// The admin kubeconfig still points where kapi listens.
	if u.Hostname() != "127.0.0.1" {
		t.Errorf("kubeconfig server %s, want 127.0.0.1", k.URL())
	}
}
