package service

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	kapicorev1 "github.com/kapi-dev/kapi/internal/apis/core/v1"
	"github.com/kapi-dev/kapi/internal/registry/core/service/portallocator"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/networking/ipaddress"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

type fixture struct {
	scheme *runtime.Scheme
	getter *registrytest.OptionsGetter
	ips    *generic.Store
	svc    *REST
	status *generic.StatusREST
}

// newFixture builds the service storage over a fresh memory backend.
func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	getter := registrytest.NewOptionsGetter(t, scheme)
	f := &fixture{scheme: scheme, getter: getter}
	f.restart(t, opts)
	return f
}

// restart builds new storage (and allocators) over the same backend, as
// a server restart does.
func (f *fixture) restart(t *testing.T, opts Options) {
	t.Helper()
	ips, err := ipaddress.NewREST(f.scheme, f.getter)
	if err != nil {
		t.Fatal(err)
	}
	opts.IPAddresses = ips
	svc, status, _, err := NewREST(f.scheme, f.getter, opts)
	if err != nil {
		t.Fatal(err)
	}
	f.ips, f.svc, f.status = ips, svc, status
}

var ctx = registrytest.NamespaceContext("ns")

func newService(name string, mutate ...func(*corev1.Service)) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "x"},
			Ports:    []corev1.ServicePort{{Port: 80}},
		},
	}
	for _, m := range mutate {
		m(svc)
	}
	kapicorev1.SetDefaultsService(svc)
	return svc
}

func (f *fixture) create(t *testing.T, svc *corev1.Service) (*corev1.Service, error) {
	t.Helper()
	out, err := f.svc.Create(ctx, svc, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		return nil, err
	}
	return out.(*corev1.Service), nil
}

func (f *fixture) mustCreate(t *testing.T, svc *corev1.Service) *corev1.Service {
	t.Helper()
	out, err := f.create(t, svc)
	if err != nil {
		t.Fatalf("create %s: %v", svc.Name, err)
	}
	return out
}

func (f *fixture) ipAddresses(t *testing.T) map[string]*networkingv1.IPAddress {
	t.Helper()
	obj, err := f.ips.List(registrytest.NamespaceContext(""), &metainternalversion.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*networkingv1.IPAddress{}
	for i, ip := range obj.(*networkingv1.IPAddressList).Items {
		out[ip.Name] = &obj.(*networkingv1.IPAddressList).Items[i]
	}
	return out
}

func kubernetesService() *corev1.Service {
	return newService("kubernetes", func(s *corev1.Service) {
		s.Namespace = "ns"
		s.Spec.Selector = nil
		s.Spec.ClusterIP = "10.0.0.1"
	})
}

// TestFillRange fills a /24: 254 usable addresses (.1 to .254), .1 held
// by the kubernetes service, so 253 services get distinct addresses and
// the next one fails as upstream does. Deleting one frees its address
// for the next create, and a restarted server sees the same allocations.
func TestFillRange(t *testing.T) {
	f := newFixture(t, Options{})
	f.mustCreate(t, kubernetesService())
	seen := map[string]string{"10.0.0.1": "kubernetes"}
	const want = 253
	for i := range want {
		name := "s" + strconv.Itoa(i)
		svc := f.mustCreate(t, newService(name))
		ip := svc.Spec.ClusterIP
		if other, dup := seen[ip]; dup {
			t.Fatalf("%s got %s, already held by %s", name, ip, other)
		}
		addr := netip.MustParseAddr(ip)
		if !DefaultServiceCIDR.Contains(addr) || ip == "10.0.0.0" || ip == "10.0.0.255" {
			t.Fatalf("%s got %s, outside the usable range", name, ip)
		}
		seen[ip] = name
	}
	_, err := f.create(t, newService("overflow"))
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "Internal error occurred: failed to allocate a serviceIP: range is full") {
		t.Fatalf("create past a full range: %v", err)
	}
	if n := len(f.ipAddresses(t)); n != want+1 {
		t.Fatalf("%d IPAddresses, want %d (the failed create must not leave one)", n, want+1)
	}

	// A restarted server keeps every allocation.
	f.restart(t, Options{})
	if _, err := f.create(t, newService("after-restart")); !apierrors.IsInternalError(err) {
		t.Fatalf("create after restart with a full range: %v", err)
	}

	freed := ""
	for ip, name := range seen {
		if name == "s42" {
			freed = ip
		}
	}
	if _, _, err := f.svc.Delete(ctx, "s42", nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.ipAddresses(t)[freed]; ok {
		t.Fatalf("IPAddress %s survived its service", freed)
	}
	got := f.mustCreate(t, newService("reuse"))
	if got.Spec.ClusterIP != freed {
		t.Errorf("next service got %s, want the freed %s", got.Spec.ClusterIP, freed)
	}
}

func TestCreateAllocation(t *testing.T) {
	f := newFixture(t, Options{})
	svc := f.mustCreate(t, newService("a"))
	if svc.Spec.ClusterIP == "" || len(svc.Spec.ClusterIPs) != 1 || svc.Spec.ClusterIPs[0] != svc.Spec.ClusterIP {
		t.Fatalf("clusterIP %q clusterIPs %v", svc.Spec.ClusterIP, svc.Spec.ClusterIPs)
	}
	if svc.Spec.ClusterIP == "10.0.0.1" {
		t.Errorf("dynamic allocation handed out the kubernetes service's address")
	}
	if p := svc.Spec.IPFamilyPolicy; p == nil || *p != corev1.IPFamilyPolicySingleStack {
		t.Errorf("ipFamilyPolicy %v", p)
	}
	if fam := svc.Spec.IPFamilies; len(fam) != 1 || fam[0] != corev1.IPv4Protocol {
		t.Errorf("ipFamilies %v", fam)
	}
	ip := f.ipAddresses(t)[svc.Spec.ClusterIP]
	if ip == nil {
		t.Fatalf("no IPAddress for %s", svc.Spec.ClusterIP)
	}
	wantRef := networkingv1.ParentReference{Resource: "services", Namespace: "ns", Name: "a"}
	if ip.Spec.ParentRef == nil || *ip.Spec.ParentRef != wantRef {
		t.Errorf("parentRef %+v, want %+v", ip.Spec.ParentRef, wantRef)
	}
	if ip.Labels[networkingv1.LabelManagedBy] != "ipallocator.k8s.io" || ip.Labels[networkingv1.LabelIPAddressFamily] != "IPv4" {
		t.Errorf("labels %v", ip.Labels)
	}

	// A requested free address is honoured; a taken or foreign one is
	// refused with upstream's messages.
	b := f.mustCreate(t, newService("b", func(s *corev1.Service) { s.Spec.ClusterIP = "10.0.0.10" }))
	if b.Spec.ClusterIP != "10.0.0.10" {
		t.Errorf("requested IP: got %s", b.Spec.ClusterIP)
	}
	tests := []struct {
		ip, msg string
	}{
		{"10.0.0.10", `spec.clusterIPs: Invalid value: ["10.0.0.10"]: failed to allocate IP 10.0.0.10: provided IP is already allocated`},
		{"10.1.0.10", `failed to allocate IP 10.1.0.10: provided IP is not in the valid range. The range of valid IPs is 10.0.0.0/24`},
		{"10.0.0.255", `provided IP is not in the valid range`},
	}
	for _, tt := range tests {
		_, err := f.create(t, newService("c", func(s *corev1.Service) { s.Spec.ClusterIP = tt.ip }))
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("request %s: %v, want Invalid containing %q", tt.ip, err, tt.msg)
		}
	}

	// Headless and ExternalName services get no address.
	headless := f.mustCreate(t, newService("headless", func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone }))
	if headless.Spec.ClusterIPs[0] != "None" || *headless.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
		t.Errorf("headless spec %+v", headless.Spec)
	}
	selectorless := f.mustCreate(t, newService("selectorless", func(s *corev1.Service) {
		s.Spec.ClusterIP = corev1.ClusterIPNone
		s.Spec.Selector = nil
	}))
	if *selectorless.Spec.IPFamilyPolicy != corev1.IPFamilyPolicyRequireDualStack || len(selectorless.Spec.IPFamilies) != 2 {
		t.Errorf("headless selectorless: policy %v families %v", *selectorless.Spec.IPFamilyPolicy, selectorless.Spec.IPFamilies)
	}
	ext := f.mustCreate(t, newService("ext", func(s *corev1.Service) {
		s.Spec.Type = corev1.ServiceTypeExternalName
		s.Spec.ExternalName = "example.com"
	}))
	if ext.Spec.ClusterIP != "" || ext.Spec.IPFamilyPolicy != nil {
		t.Errorf("external name spec %+v", ext.Spec)
	}
	if n := len(f.ipAddresses(t)); n != 2 {
		t.Errorf("%d IPAddresses, want 2", n)
	}

	// A rejected service gives its address back.
	_, err := f.create(t, newService("bad_name"))
	if !apierrors.IsInvalid(err) {
		t.Fatalf("bad name: %v", err)
	}
	if n := len(f.ipAddresses(t)); n != 2 {
		t.Errorf("%d IPAddresses after a rejected create, want 2", n)
	}
	// A dry run allocates nothing.
	dry, err := f.svc.Create(ctx, newService("dry"), nil, &metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || dry.(*corev1.Service).Spec.ClusterIP == "" {
		t.Fatalf("dry run: %v", err)
	}
	if n := len(f.ipAddresses(t)); n != 2 {
		t.Errorf("%d IPAddresses after a dry run, want 2", n)
	}
}

func nodePortService(name string, ports ...int32) *corev1.Service {
	return newService(name, func(s *corev1.Service) {
		s.Spec.Type = corev1.ServiceTypeNodePort
		s.Spec.Ports = nil
		for i, p := range ports {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "p" + strconv.Itoa(i), Port: 80 + int32(i), NodePort: p})
		}
	})
}

func TestNodePorts(t *testing.T) {
	f := newFixture(t, Options{})
	a := f.mustCreate(t, nodePortService("a", 0, 30080))
	auto, fixed := a.Spec.Ports[0].NodePort, a.Spec.Ports[1].NodePort
	if !portallocator.DefaultRange.Contains(int(auto)) || fixed != 30080 {
		t.Fatalf("node ports %d, %d", auto, fixed)
	}
	tests := []struct {
		port int32
		msg  string
	}{
		{30080, `spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated`},
		{8080, `spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767`},
	}
	for _, tt := range tests {
		_, err := f.create(t, nodePortService("b", tt.port))
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("nodePort %d: %v, want %q", tt.port, err, tt.msg)
		}
	}
	// The failed creates gave back their cluster IPs.
	if n := len(f.ipAddresses(t)); n != 1 {
		t.Errorf("%d IPAddresses, want 1", n)
	}

	// A restarted server rebuilds the used node ports from storage.
	f.restart(t, Options{})
	if _, err := f.create(t, nodePortService("c", 30080)); !apierrors.IsInvalid(err) {
		t.Errorf("after restart, taken node port: %v", err)
	}
	// Changing the type to ClusterIP releases the node ports.
	upd := a.DeepCopy()
	upd.Spec.Type = corev1.ServiceTypeClusterIP
	upd.Spec.ExternalTrafficPolicy = ""
	out, _, err := f.svc.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(upd), nil, nil, false, &metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("to ClusterIP: %v", err)
	}
	for _, p := range out.(*corev1.Service).Spec.Ports {
		if p.NodePort != 0 {
			t.Errorf("node port %d kept on a ClusterIP service", p.NodePort)
		}
	}
	f.mustCreate(t, nodePortService("d", 30080))
	// Deleting frees them too.
	if _, _, err := f.svc.Delete(ctx, "d", nil, nil); err != nil {
		t.Fatal(err)
	}
	f.mustCreate(t, nodePortService("e", 30080))
	// A small range fills up with upstream's error.
	small := newFixture(t, Options{NodePortRange: portallocator.Range{Base: 30000, Size: 2}})
	small.mustCreate(t, nodePortService("a", 0, 0))
	_, err = small.create(t, nodePortService("b", 0))
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "failed to allocate a nodePort: range is full") {
		t.Errorf("full node port range: %v", err)
	}
}

func TestUpdateKeepsAllocations(t *testing.T) {
	f := newFixture(t, Options{})
	a := f.mustCreate(t, nodePortService("a", 0))
	// A PUT of the original manifest (no clusterIP, no nodePort) keeps
	// what was allocated.
	put := nodePortService("a", 0)
	put.ResourceVersion = a.ResourceVersion
	out, _, err := f.svc.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(put), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.Service)
	if got.Spec.ClusterIP != a.Spec.ClusterIP || got.Spec.Ports[0].NodePort != a.Spec.Ports[0].NodePort {
		t.Errorf("update changed allocations: %s/%d -> %s/%d", a.Spec.ClusterIP, a.Spec.Ports[0].NodePort, got.Spec.ClusterIP, got.Spec.Ports[0].NodePort)
	}
	// Changing the cluster IP is refused. The allocated IP is random in a
	// /24: the new one must differ from it (1 run in ~250 drew .99).
	other := "10.0.0.99"
	if got.Spec.ClusterIP == other {
		other = "10.0.0.98"
	}
	change := got.DeepCopy()
	change.Spec.ClusterIP, change.Spec.ClusterIPs = other, []string{other}
	_, _, err = f.svc.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(change), nil, nil, false, nil)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `spec.clusterIPs[0]: Invalid value: ["`+other+`"]: may not change once set`) {
		t.Errorf("changing clusterIP: %v", err)
	}
	// To ExternalName releases the IP.
	ext := got.DeepCopy()
	ext.Spec.Type = corev1.ServiceTypeExternalName
	ext.Spec.ExternalName = "example.com"
	out, _, err = f.svc.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(ext), nil, nil, false, nil)
	if err != nil {
		t.Fatalf("to ExternalName: %v", err)
	}
	if s := out.(*corev1.Service); s.Spec.ClusterIP != "" || s.Spec.Ports[0].NodePort != 0 {
		t.Errorf("ExternalName kept %q / %d", s.Spec.ClusterIP, s.Spec.Ports[0].NodePort)
	}
	if n := len(f.ipAddresses(t)); n != 0 {
		t.Errorf("%d IPAddresses after the change to ExternalName", n)
	}
	// And back to ClusterIP allocates one.
	back := out.(*corev1.Service).DeepCopy()
	back.Spec.Type = corev1.ServiceTypeClusterIP
	back.Spec.ExternalName = ""
	kapicorev1.SetDefaultsService(back)
	out, _, err = f.svc.Update(ctx, "a", rest.DefaultUpdatedObjectInfo(back), nil, nil, false, nil)
	if err != nil {
		t.Fatalf("back to ClusterIP: %v", err)
	}
	if ip := out.(*corev1.Service).Spec.ClusterIP; f.ipAddresses(t)[ip] == nil {
		t.Errorf("no IPAddress for %q", ip)
	}
}

func TestStatus(t *testing.T) {
	f := newFixture(t, Options{})
	lb := newService("lb", func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeLoadBalancer })
	lb.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}
	created := f.mustCreate(t, lb)
	if len(created.Status.LoadBalancer.Ingress) != 0 {
		t.Errorf("create kept status %+v", created.Status)
	}
	if created.Generation != 0 {
		t.Errorf("generation %d: services have none upstream", created.Generation)
	}
	// A status write takes the status and keeps the spec.
	st := created.DeepCopy()
	st.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}
	st.Spec.Selector = map[string]string{"other": "y"}
	out, _, err := f.status.Update(ctx, "lb", rest.DefaultUpdatedObjectInfo(st), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.Service)
	if got.Spec.Selector["app"] != "x" || len(got.Status.LoadBalancer.Ingress) != 1 {
		t.Errorf("status update: spec %v status %+v", got.Spec.Selector, got.Status)
	}
	if m := got.Status.LoadBalancer.Ingress[0].IPMode; m == nil || *m != corev1.LoadBalancerIPModeVIP {
		t.Errorf("ipMode %v, want VIP", m)
	}
	// A main write keeps the status.
	main := got.DeepCopy()
	main.Status = corev1.ServiceStatus{}
	main.Spec.Selector = map[string]string{"app": "z"}
	out, _, err = f.svc.Update(ctx, "lb", rest.DefaultUpdatedObjectInfo(main), nil, nil, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*corev1.Service); len(got.Status.LoadBalancer.Ingress) != 1 || got.Spec.Selector["app"] != "z" {
		t.Errorf("main update: %+v", got)
	}
	// Bad status is refused.
	bad := out.(*corev1.Service).DeepCopy()
	bad.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "nope"}}
	if _, _, err := f.status.Update(ctx, "lb", rest.DefaultUpdatedObjectInfo(bad), nil, nil, false, nil); !apierrors.IsInvalid(err) {
		t.Errorf("invalid status: %v", err)
	}
}

func TestStorageBasics(t *testing.T) {
	f := newFixture(t, Options{})
	if f.svc.GetSingularName() != "service" || f.svc.ShortNames()[0] != "svc" || f.svc.Categories()[0] != "all" || !f.svc.NamespaceScoped() {
		t.Errorf("discovery: %q %v %v", f.svc.GetSingularName(), f.svc.ShortNames(), f.svc.Categories())
	}
	_, err := (&ProxyREST{}).Get(context.Background(), "a", nil)
	if !apierrors.IsServiceUnavailable(err) || !strings.Contains(err.Error(), "kube-proxy") {
		t.Errorf("proxy: %v", err)
	}
	f.mustCreate(t, newService("a"))
	f.mustCreate(t, newService("b"))
	obj, err := f.svc.DeleteCollection(ctx, nil, &metav1.DeleteOptions{}, &metainternalversion.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(obj.(*corev1.ServiceList).Items); n != 2 {
		t.Errorf("deletecollection deleted %d", n)
	}
	if n := len(f.ipAddresses(t)); n != 0 {
		t.Errorf("%d IPAddresses left after deletecollection", n)
	}
}

func TestGolden(t *testing.T) {
	f := newFixture(t, Options{})
	for _, name := range []string{"clusterip", "nodeport"} {
		t.Run(name, func(t *testing.T) {
			registrytest.Golden(t, f.scheme, f.svc, "testdata", name)
		})
	}
}
