package endpointslice

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kapi-dev/kapi/internal/controllers/controllertest"
)

var created = controllertest.Created

func service(mutate ...func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "svc-uid", Labels: map[string]string{"app": "web"}, CreationTimestamp: created},
		Spec: corev1.ServiceSpec{
			Selector:   map[string]string{"app": "web"},
			ClusterIP:  "10.0.0.10",
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Ports:      []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("http")}},
		},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

// pod is the serving Pod fixture.
var pod = controllertest.WebPod

var node = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{corev1.LabelTopologyZone: "zone-a"}}}

type env struct {
	c      *Controller
	client *fake.Clientset
}

// newEnv builds the controller over objs; created slices get names as
// the server would give them.
func newEnv(t testing.TB, maxPerSlice int, objs ...runtime.Object) *env {
	t.Helper()
	client := fake.NewClientset(objs...)
	n := 0
	client.PrependReactor("create", "endpointslices", func(a k8stesting.Action) (bool, runtime.Object, error) {
		s := a.(k8stesting.CreateAction).GetObject().(*discoveryv1.EndpointSlice)
		if s.Name == "" {
			n++
			s.Name = fmt.Sprintf("%s%05d", s.GenerateName, n)
		}
		return false, nil, nil
	})
	f := informers.NewSharedInformerFactory(client, 0)
	core := f.Core().V1()
	c, err := New(client, core.Pods(), core.Services(), core.Nodes(), f.Discovery().V1().EndpointSlices(), maxPerSlice, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		var inf indexer
		switch o.(type) {
		case *corev1.Pod:
			inf = core.Pods().Informer().GetIndexer()
		case *corev1.Service:
			inf = core.Services().Informer().GetIndexer()
		case *corev1.Node:
			inf = core.Nodes().Informer().GetIndexer()
		case *discoveryv1.EndpointSlice:
			inf = f.Discovery().V1().EndpointSlices().Informer().GetIndexer()
		}
		if err := inf.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	client.ClearActions()
	return &env{c: c, client: client}
}

type indexer = interface{ Add(any) error }

func (e *env) slices(t testing.TB) []discoveryv1.EndpointSlice {
	t.Helper()
	list, err := e.client.DiscoveryV1().EndpointSlices("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items
}

func (e *env) verbs() []string {
	var v []string
	for _, a := range e.client.Actions() {
		if a.GetVerb() != "list" && a.GetVerb() != "watch" {
			v = append(v, a.GetVerb())
		}
	}
	return v
}

// conds renders an endpoint as name:ready/serving/terminating.
func conds(ep discoveryv1.Endpoint) string {
	b := func(p *bool) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("%s:%s/%s/%s", ep.TargetRef.Name, b(ep.Conditions.Ready), b(ep.Conditions.Serving), b(ep.Conditions.Terminating))
}

func sliceConds(s discoveryv1.EndpointSlice) []string {
	var out []string
	for _, ep := range s.Endpoints {
		out = append(out, conds(ep))
	}
	slices.Sort(out)
	return out
}

// TestSyncSlices pins the slices upstream's controller writes for a
// Service and its Pods.
func TestSyncSlices(t *testing.T) {
	terminating := func(p *corev1.Pod) { p.DeletionTimestamp = &created }
	tests := []struct {
		name    string
		objs    []runtime.Object
		wantErr bool
		// want is, per slice (by name), its address type and endpoints.
		want []string
	}{{
		name: "ready, not ready and terminating pods",
		objs: []runtime.Object{service(), node, pod("a", "10.1.0.1", true), pod("b", "10.1.0.2", false), pod("c", "10.1.0.3", true, terminating)},
		want: []string{"IPv4 [a:true/true/false b:false/false/false c:false/true/true]"},
	}, {
		name: "publishNotReadyAddresses",
		objs: []runtime.Object{service(func(s *corev1.Service) { s.Spec.PublishNotReadyAddresses = true }), node, pod("b", "10.1.0.2", false), pod("c", "10.1.0.3", true, terminating)},
		want: []string{"IPv4 [b:true/false/false c:true/true/true]"},
	}, {
		name: "no pods: an empty placeholder slice",
		objs: []runtime.Object{service(), node},
		want: []string{"IPv4 []"},
	}, {
		name: "pods without IP or finished are left out",
		objs: []runtime.Object{service(), node, pod("a", "", true, func(p *corev1.Pod) { p.Status.PodIPs = nil }), pod("b", "10.1.0.2", true, func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed })},
		want: []string{"IPv4 []"},
	}, {
		name:    "a pod on an unknown node is left out and the sync retried",
		objs:    []runtime.Object{service(), pod("a", "10.1.0.1", true)},
		want:    []string{"IPv4 []"},
		wantErr: true,
	}, {
		name: "dual stack: a slice per family",
		objs: []runtime.Object{service(func(s *corev1.Service) {
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol, corev1.IPv4Protocol}
		}), node,
			pod("a", "10.1.0.1", true, func(p *corev1.Pod) { p.Status.PodIPs = append(p.Status.PodIPs, corev1.PodIP{IP: "fd00::1"}) })},
		want: []string{"IPv4 [a:true/true/false]", "IPv6 [a:true/true/false]"},
	}, {
		name: "a selector-less service gets nothing",
		objs: []runtime.Object{service(func(s *corev1.Service) { s.Spec.Selector = nil }), node, pod("a", "10.1.0.1", true)},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, 0, tt.objs...)
			err := e.c.sync(context.Background(), "ns/web")
			if (err != nil) != tt.wantErr {
				t.Fatalf("sync: %v", err)
			}
			var got []string
			for _, s := range e.slices(t) {
				got = append(got, fmt.Sprintf("%s %v", s.AddressType, sliceConds(s)))
			}
			slices.Sort(got)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("slices %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSliceShape pins a slice's metadata, ports and endpoint fields.
func TestSliceShape(t *testing.T) {
	e := newEnv(t, 0, service(), node, pod("a", "10.1.0.1", true, func(p *corev1.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "a", "web" }))
	if err := e.c.sync(context.Background(), "ns/web"); err != nil {
		t.Fatal(err)
	}
	s := e.slices(t)[0]
	if s.GenerateName != "web-" || s.Labels[discoveryv1.LabelServiceName] != "web" || s.Labels[discoveryv1.LabelManagedBy] != ControllerName || s.Labels["app"] != "web" {
		t.Errorf("meta %+v", s.ObjectMeta)
	}
	if _, headless := s.Labels[corev1.IsHeadlessService]; headless {
		t.Error("headless label on a ClusterIP service's slice")
	}
	if len(s.OwnerReferences) != 1 || s.OwnerReferences[0].Kind != "Service" || s.OwnerReferences[0].UID != "svc-uid" || !*s.OwnerReferences[0].Controller || !*s.OwnerReferences[0].BlockOwnerDeletion {
		t.Errorf("owners %+v", s.OwnerReferences)
	}
	if s.Annotations[corev1.EndpointsLastChangeTriggerTime] != created.UTC().Format(time.RFC3339Nano) {
		t.Errorf("annotations %v", s.Annotations)
	}
	if len(s.Ports) != 1 || *s.Ports[0].Name != "http" || *s.Ports[0].Port != 8080 || *s.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("ports %+v", s.Ports)
	}
	ep := s.Endpoints[0]
	if ep.Addresses[0] != "10.1.0.1" || *ep.NodeName != "node-1" || *ep.Zone != "zone-a" || *ep.Hostname != "a" || ep.TargetRef.UID != "uid-a" {
		t.Errorf("endpoint %+v", ep)
	}
}

// TestSlicesUpdatedNotChurned pins the reconciler's economy: a pod
// becoming unready updates its slice in place; an unchanged Service
// writes nothing; 250 endpoints make three slices of at most 100; a
// placeholder stays when there is still nothing.
func TestSlicesUpdatedNotChurned(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, 0, service(), node, pod("a", "10.1.0.1", true))
	if err := e.c.sync(ctx, "ns/web"); err != nil {
		t.Fatal(err)
	}
	first := e.slices(t)[0]

	// Again, with the written slice in the cache: nothing to do.
	e2 := newEnv(t, 0, service(), node, pod("a", "10.1.0.1", true), &first)
	if err := e2.c.sync(ctx, "ns/web"); err != nil || len(e2.verbs()) != 0 {
		t.Fatalf("resync wrote %v (%v)", e2.verbs(), err)
	}
	// The pod turned unready: the same slice is updated.
	e3 := newEnv(t, 0, service(), node, pod("a", "10.1.0.1", false), &first)
	if err := e3.c.sync(ctx, "ns/web"); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(e3.verbs()) != "[update]" || e3.slices(t)[0].Name != first.Name || fmt.Sprint(sliceConds(e3.slices(t)[0])) != "[a:false/false/false]" {
		t.Errorf("wrote %v, slices %v", e3.verbs(), e3.slices(t))
	}
	// The pod went: the slice is emptied into the placeholder, by update.
	e4 := newEnv(t, 0, service(), node, &first)
	if err := e4.c.sync(ctx, "ns/web"); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(e4.verbs()) != "[update]" || len(e4.slices(t)) != 1 || len(e4.slices(t)[0].Endpoints) != 0 {
		t.Errorf("wrote %v, slices %v", e4.verbs(), e4.slices(t))
	}

	objs := []runtime.Object{service(), node}
	for i := range 250 {
		objs = append(objs, pod(fmt.Sprintf("p%03d", i), fmt.Sprintf("10.1.%d.%d", i/200, i%200+1), true))
	}
	e5 := newEnv(t, 0, objs...)
	if err := e5.c.sync(ctx, "ns/web"); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, s := range e5.slices(t) {
		sizes = append(sizes, len(s.Endpoints))
	}
	slices.Sort(sizes)
	if fmt.Sprint(sizes) != "[50 100 100]" {
		t.Errorf("slice sizes %v", sizes)
	}
}

// TestStaleCacheWaits: a cache that has not seen the controller's own
// write makes it retry instead of writing a duplicate.
func TestStaleCacheWaits(t *testing.T) {
	e := newEnv(t, 0, service(), node, pod("a", "10.1.0.1", true))
	ctx := context.Background()
	if err := e.c.sync(ctx, "ns/web"); err != nil {
		t.Fatal(err)
	}
	e.client.ClearActions()
	if err := e.c.sync(ctx, "ns/web"); err != errStaleCache {
		t.Fatalf("sync with a stale cache: %v", err)
	}
	if len(e.verbs()) != 0 {
		t.Errorf("wrote %v from a stale cache", e.verbs())
	}
}
