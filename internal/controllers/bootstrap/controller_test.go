package bootstrap

import (
	"context"
	"net"
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/core/endpoint"
	"github.com/kapi-dev/kapi/internal/registry/core/service"
	"github.com/kapi-dev/kapi/internal/registry/discovery/endpointslice"
	"github.com/kapi-dev/kapi/internal/registry/networking/ipaddress"
	"github.com/kapi-dev/kapi/internal/registry/networking/servicecidr"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

func newController(t *testing.T) (*Controller, Config) {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	getter := registrytest.NewOptionsGetter(t, scheme)
	ips, err := ipaddress.NewREST(scheme, getter)
	if err != nil {
		t.Fatal(err)
	}
	cidr := netip.MustParsePrefix("10.96.0.0/24")
	svcs, err := service.NewStorage(scheme, getter, service.Options{ServiceCIDR: cidr, IPAddresses: ips})
	if err != nil {
		t.Fatal(err)
	}
	eps, err := endpoint.NewStorage(scheme, getter)
	if err != nil {
		t.Fatal(err)
	}
	slices, err := endpointslice.NewStorage(scheme, getter)
	if err != nil {
		t.Fatal(err)
	}
	cidrs, err := servicecidr.NewStorage(scheme, getter)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Services:          svcs["services"].(Storage),
		Endpoints:         eps["endpoints"].(Storage),
		EndpointSlices:    slices["endpointslices"].(Storage),
		ServiceCIDRs:      cidrs["servicecidrs"].(Storage),
		ServiceCIDRStatus: cidrs["servicecidrs/status"].(rest.Updater),
		ServiceCIDR:       cidr,
		AdvertiseAddress:  net.ParseIP("192.168.1.10"),
		SecurePort:        6443,
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, cfg
}

func get[T any](t *testing.T, s rest.Getter, ns, name string) T {
	t.Helper()
	obj, err := s.Get(registrytest.NamespaceContext(ns), name, &metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get %s/%s: %v", ns, name, err)
	}
	return obj.(T)
}

func TestEnsure(t *testing.T) {
	c, cfg := newController(t)
	ctx := context.Background()
	for range 2 { // the second pass finds everything in place
		if err := c.Ensure(ctx); err != nil {
			t.Fatal(err)
		}
	}
	svc := get[*corev1.Service](t, cfg.Services, "default", "kubernetes")
	if svc.Spec.ClusterIP != "10.96.0.1" || svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Labels["component"] != "apiserver" || svc.Labels["provider"] != "kubernetes" {
		t.Errorf("service %+v", svc)
	}
	if p := svc.Spec.Ports; len(p) != 1 || p[0].Name != "https" || p[0].Port != 443 || p[0].TargetPort.IntValue() != 6443 || p[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("service ports %+v", p)
	}
	ep := get[*corev1.Endpoints](t, cfg.Endpoints, "default", "kubernetes")
	if ss := ep.Subsets; len(ss) != 1 || ss[0].Addresses[0].IP != "192.168.1.10" || ss[0].Ports[0].Port != 6443 || ss[0].Ports[0].Name != "https" {
		t.Errorf("endpoints %+v", ep.Subsets)
	}
	slice := get[*discoveryv1.EndpointSlice](t, cfg.EndpointSlices, "default", "kubernetes")
	if slice.Labels[discoveryv1.LabelServiceName] != "kubernetes" || slice.AddressType != discoveryv1.AddressTypeIPv4 ||
		slice.Endpoints[0].Addresses[0] != "192.168.1.10" || *slice.Ports[0].Port != 6443 || slice.Generation != 1 {
		t.Errorf("slice %+v", slice)
	}
	sc := get[*networkingv1.ServiceCIDR](t, cfg.ServiceCIDRs, "", "kubernetes")
	if len(sc.Spec.CIDRs) != 1 || sc.Spec.CIDRs[0] != "10.96.0.0/24" {
		t.Errorf("servicecidr %+v", sc.Spec)
	}
	cond := meta.FindStatusCondition(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady)
	if cond == nil || cond.Status != metav1.ConditionTrue || cond.Message != "Kubernetes default Service CIDR is ready" {
		t.Errorf("Ready condition %+v", cond)
	}

	// Drift is repaired: a changed port, changed endpoints.
	svc.Spec.Ports[0].TargetPort.IntVal = 1234
	if _, _, err := cfg.Services.Update(registrytest.NamespaceContext("default"), "kubernetes", rest.DefaultUpdatedObjectInfo(svc), nil, nil, false, nil); err != nil {
		t.Fatal(err)
	}
	ep.Subsets[0].Addresses[0].IP = "192.168.1.99"
	if _, _, err := cfg.Endpoints.Update(registrytest.NamespaceContext("default"), "kubernetes", rest.DefaultUpdatedObjectInfo(ep), nil, nil, false, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	if svc := get[*corev1.Service](t, cfg.Services, "default", "kubernetes"); svc.Spec.Ports[0].TargetPort.IntValue() != 6443 || svc.Spec.ClusterIP != "10.96.0.1" {
		t.Errorf("service not repaired: %+v", svc.Spec)
	}
	if ep := get[*corev1.Endpoints](t, cfg.Endpoints, "default", "kubernetes"); ep.Subsets[0].Addresses[0].IP != "192.168.1.10" {
		t.Errorf("endpoints not repaired: %+v", ep.Subsets)
	}
}

func TestRunStops(t *testing.T) {
	c, cfg := newController(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		c.Run(ctx)
		close(done)
	}()
	// Run reconciles at once; wait for the service through the storage.
	for {
		if _, err := cfg.Services.Get(registrytest.NamespaceContext("default"), "kubernetes", &metav1.GetOptions{}); err == nil {
			break
		}
		select {
		case <-done:
			t.Fatal("Run returned early")
		default:
		}
	}
	cancel()
	<-done
}

func TestNewRejects(t *testing.T) {
	_, cfg := newController(t)
	bad := cfg
	bad.AdvertiseAddress = nil
	if _, err := New(bad); err == nil {
		t.Error("nil advertise address accepted")
	}
	bad = cfg
	bad.SecurePort = 0
	if _, err := New(bad); err == nil {
		t.Error("port 0 accepted")
	}
	bad = cfg
	bad.Services = nil
	if _, err := New(bad); err == nil {
		t.Error("missing storage accepted")
	}
}

// TestCreateServiceCIDR: on fresh storage the ServiceCIDR is created and
// made Ready without a read first; where it exists already (another
// server made it) the second call does what EnsureServiceCIDR does.
func TestCreateServiceCIDR(t *testing.T) {
	c, cfg := newController(t)
	ctx := context.Background()
	for i := range 2 {
		if err := c.CreateServiceCIDR(ctx); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		sc := get[*networkingv1.ServiceCIDR](t, cfg.ServiceCIDRs, "", "kubernetes")
		if len(sc.Spec.CIDRs) != 1 || sc.Spec.CIDRs[0] != "10.96.0.0/24" {
			t.Errorf("call %d: servicecidr %+v", i+1, sc.Spec)
		}
		if cond := meta.FindStatusCondition(sc.Status.Conditions, networkingv1.ServiceCIDRConditionReady); cond == nil || cond.Status != metav1.ConditionTrue {
			t.Errorf("call %d: Ready condition %+v", i+1, cond)
		}
	}
}
