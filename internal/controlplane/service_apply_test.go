package controlplane

import (
	"context"
	"net/http"
	"net/netip"
	"slices"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// A Service created by server-side apply is a create: it gets what a POST
// gives it (cluster IP, its IPAddress, IP families, node ports, uid,
// creationTimestamp). Issue 15, defect 5.
func TestServiceCreatedByApplyIsAllocated(t *testing.T) {
	s := startServer(t, "memory")
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	port := func(name string) *corev1ac.ServicePortApplyConfiguration {
		return corev1ac.ServicePort().WithName(name).WithPort(80).WithTargetPort(intstr.FromInt32(8080))
	}
	cases := []struct {
		name    string
		svcType corev1.ServiceType
	}{
		{"applied-clusterip", corev1.ServiceTypeClusterIP},
		{"applied-nodeport", corev1.ServiceTypeNodePort},
		{"applied-loadbalancer", corev1.ServiceTypeLoadBalancer},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ac := corev1ac.Service(tc.name, patchNamespace).WithSpec(corev1ac.ServiceSpec().
				WithType(tc.svcType).WithSelector(map[string]string{"app": "web"}).WithPorts(port("http")))
			svc, err := cs.CoreV1().Services(patchNamespace).Apply(ctx, ac, metav1.ApplyOptions{FieldManager: "test"})
			if err != nil {
				t.Fatal(err)
			}
			checkAllocated(ctx, t, cs, svc, tc.svcType != corev1.ServiceTypeClusterIP)
			// What the server stored, not only what it answered.
			stored, err := cs.CoreV1().Services(patchNamespace).Get(ctx, tc.name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkAllocated(ctx, t, cs, stored, tc.svcType != corev1.ServiceTypeClusterIP)
		})
	}
	t.Run("dry run allocates nothing", func(t *testing.T) {
		ac := corev1ac.Service("applied-dry", patchNamespace).WithSpec(corev1ac.ServiceSpec().
			WithType(corev1.ServiceTypeNodePort).WithPorts(port("http")))
		svc, err := cs.CoreV1().Services(patchNamespace).Apply(ctx, ac, metav1.ApplyOptions{FieldManager: "test", DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatal(err)
		}
		if svc.Spec.ClusterIP == "" || svc.Spec.Ports[0].NodePort == 0 {
			t.Errorf("dry-run answer has no cluster IP or node port: %+v", svc.Spec)
		}
		if _, err := cs.CoreV1().Services(patchNamespace).Get(ctx, "applied-dry", metav1.GetOptions{}); err == nil {
			t.Error("dry run stored the service")
		}
		if _, err := cs.NetworkingV1().IPAddresses().Get(ctx, svc.Spec.ClusterIP, metav1.GetOptions{}); err == nil {
			t.Errorf("dry run left IPAddress %s", svc.Spec.ClusterIP)
		}
	})
}

// checkAllocated checks svc has the create-time fields a POST gives it.
func checkAllocated(ctx context.Context, t *testing.T, cs kubernetes.Interface, svc *corev1.Service, wantNodePort bool) {
	t.Helper()
	if svc.UID == "" || svc.CreationTimestamp.IsZero() {
		t.Errorf("no uid or creationTimestamp: %q %v", svc.UID, svc.CreationTimestamp)
	}
	ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
	if err != nil || !netip.MustParsePrefix("10.0.0.0/24").Contains(ip) {
		t.Fatalf("clusterIP %q is not in 10.0.0.0/24", svc.Spec.ClusterIP)
	}
	if !slices.Equal(svc.Spec.ClusterIPs, []string{svc.Spec.ClusterIP}) {
		t.Errorf("clusterIPs = %v, want [%s]", svc.Spec.ClusterIPs, svc.Spec.ClusterIP)
	}
	if !slices.Equal(svc.Spec.IPFamilies, []corev1.IPFamily{corev1.IPv4Protocol}) {
		t.Errorf("ipFamilies = %v, want [IPv4]", svc.Spec.IPFamilies)
	}
	if p := svc.Spec.IPFamilyPolicy; p == nil || *p != corev1.IPFamilyPolicySingleStack {
		t.Errorf("ipFamilyPolicy = %v, want SingleStack", p)
	}
	addr, err := cs.NetworkingV1().IPAddresses().Get(ctx, svc.Spec.ClusterIP, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("IPAddress of %s: %v", svc.Spec.ClusterIP, err)
	}
	if ref := addr.Spec.ParentRef; ref == nil || ref.Resource != "services" || ref.Name != svc.Name || ref.Namespace != svc.Namespace {
		t.Errorf("IPAddress %s parentRef = %+v, want services %s/%s", addr.Name, ref, svc.Namespace, svc.Name)
	}
	for _, p := range svc.Spec.Ports {
		if got := p.NodePort != 0; got != wantNodePort {
			t.Errorf("port %s: nodePort %d, want one: %v", p.Name, p.NodePort, wantNodePort)
		}
		if wantNodePort && (p.NodePort < 30000 || p.NodePort > 32767) {
			t.Errorf("port %s: nodePort %d outside 30000-32767", p.Name, p.NodePort)
		}
	}
}

// A PUT that creates (resources whose strategy allows it, such as Leases)
// is a create too: 201, uid, creationTimestamp; a second PUT updates.
func TestUpdateThatCreatesIsACreate(t *testing.T) {
	s := startServer(t, "memory")
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	leases := cs.CoordinationV1().Leases(patchNamespace)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "put-created"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("a")}}
	var code int
	created, err := leases.Update(ctx, lease, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.UID == "" || created.CreationTimestamp.IsZero() || created.ResourceVersion == "" {
		t.Errorf("created by PUT without uid, creationTimestamp or resourceVersion: %+v", created.ObjectMeta)
	}
	res := cs.CoordinationV1().RESTClient().Put().Namespace(patchNamespace).Resource("leases").Name("put-created-2").
		Body(&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "put-created-2"}}).Do(ctx).StatusCode(&code)
	if err := res.Error(); err != nil || code != http.StatusCreated {
		t.Errorf("PUT of a new lease: %d %v, want 201", code, err)
	}
	created.Spec.HolderIdentity = ptr.To("b")
	updated, err := leases.Update(ctx, created, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if updated.UID != created.UID || *updated.Spec.HolderIdentity != "b" {
		t.Errorf("second PUT: uid %s holder %v, want %s b", updated.UID, updated.Spec.HolderIdentity, created.UID)
	}
}
