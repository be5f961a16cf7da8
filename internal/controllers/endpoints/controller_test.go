package endpoints

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/controllers/controllertest"
	"github.com/kapi-dev/kapi/internal/controllers/endpointutil"
)

var created = controllertest.Created

func service(mutate ...func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Labels: map[string]string{"app": "web"}, CreationTimestamp: created},
		Spec: corev1.ServiceSpec{
			Selector:   map[string]string{"app": "web"},
			ClusterIP:  "10.0.0.10",
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Ports: []corev1.ServicePort{
				{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("http")},
				{Name: "metrics", Port: 9090, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(9090)},
			},
		},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

// pod is the serving Pod fixture.
var pod = controllertest.WebPod

func addr(name, ip string) corev1.EndpointAddress {
	return corev1.EndpointAddress{IP: ip, NodeName: ptr.To("node-1"), TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}
}

var webPorts = []corev1.EndpointPort{{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP}, {Name: "metrics", Port: 9090, Protocol: corev1.ProtocolTCP}}

// newTest builds the controller over objs (in the fake client and the
// informer caches).
func newTest(t *testing.T, objs ...runtime.Object) (*Controller, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	core := f.Core().V1()
	c, err := New(client, core.Pods(), core.Services(), core.Endpoints(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *corev1.Pod:
			err = core.Pods().Informer().GetIndexer().Add(o)
		case *corev1.Service:
			err = core.Services().Informer().GetIndexer().Add(o)
		case *corev1.Endpoints:
			err = core.Endpoints().Informer().GetIndexer().Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return c, client
}

// TestSyncBuildsSubsets pins upstream's Endpoints for a selector Service.
func TestSyncBuildsSubsets(t *testing.T) {
	tests := []struct {
		name    string
		svc     *corev1.Service
		pods    []*corev1.Pod
		want    []corev1.EndpointSubset
		headles bool
	}{{
		name: "ready and not ready, named port resolved",
		svc:  service(),
		pods: []*corev1.Pod{pod("a", "10.1.0.1", true), pod("b", "10.1.0.2", false)},
		want: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{addr("a", "10.1.0.1")}, NotReadyAddresses: []corev1.EndpointAddress{addr("b", "10.1.0.2")}, Ports: webPorts}},
	}, {
		name: "publishNotReadyAddresses makes every pod an address",
		svc:  service(func(s *corev1.Service) { s.Spec.PublishNotReadyAddresses = true }),
		pods: []*corev1.Pod{pod("a", "10.1.0.1", true), pod("b", "10.1.0.2", false)},
		want: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{addr("a", "10.1.0.1"), addr("b", "10.1.0.2")}, Ports: webPorts}},
	}, {
		name: "no IP, unscheduled, finished, terminating and unselected pods are left out",
		svc:  service(),
		pods: []*corev1.Pod{
			pod("a", "10.1.0.1", true),
			pod("noip", "", true, func(p *corev1.Pod) { p.Status.PodIPs = nil }),
			pod("unscheduled", "10.1.0.3", true, func(p *corev1.Pod) { p.Spec.NodeName = "" }),
			pod("done", "10.1.0.4", true, func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }),
			pod("going", "10.1.0.5", true, func(p *corev1.Pod) { p.DeletionTimestamp = &created }),
			pod("other", "10.1.0.6", true, func(p *corev1.Pod) { p.Labels = map[string]string{"app": "other"} }),
		},
		want: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{addr("a", "10.1.0.1")}, Ports: webPorts}},
	}, {
		// Subsets group addresses by the exact set of ports they serve.
		name: "a pod without the named port serves only the numbered one",
		svc:  service(),
		pods: []*corev1.Pod{pod("a", "10.1.0.1", true), pod("b", "10.1.0.2", true, func(p *corev1.Pod) { p.Spec.Containers[0].Ports = nil })},
		want: []corev1.EndpointSubset{
			{Addresses: []corev1.EndpointAddress{addr("a", "10.1.0.1")}, Ports: webPorts[:1]},
			{Addresses: []corev1.EndpointAddress{addr("a", "10.1.0.1"), addr("b", "10.1.0.2")}, Ports: webPorts[1:]},
		},
	}, {
		name: "headless without ports, hostname from the subdomain",
		svc: service(func(s *corev1.Service) {
			s.Spec.ClusterIP, s.Spec.Ports = corev1.ClusterIPNone, nil
		}),
		pods: []*corev1.Pod{pod("a", "10.1.0.1", true, func(p *corev1.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "a-host", "web" })},
		want: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{func() corev1.EndpointAddress {
			a := addr("a", "10.1.0.1")
			a.Hostname = "a-host"
			return a
		}()}}},
		headles: true,
	}, {
		name: "address of the service's family",
		svc:  service(func(s *corev1.Service) { s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol} }),
		pods: []*corev1.Pod{pod("a", "10.1.0.1", true, func(p *corev1.Pod) { p.Status.PodIPs = append(p.Status.PodIPs, corev1.PodIP{IP: "fd00::1"}) })},
		want: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{addr("a", "fd00::1")}, Ports: webPorts}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := []runtime.Object{tt.svc}
			for _, p := range tt.pods {
				objs = append(objs, p)
			}
			c, client := newTest(t, objs...)
			if err := c.sync(context.Background(), "ns/web"); err != nil {
				t.Fatal(err)
			}
			ep, err := client.CoreV1().Endpoints("ns").Get(context.Background(), "web", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !endpointutil.SemanticEqual(ep.Subsets, tt.want) {
				t.Errorf("subsets\n got %+v\nwant %+v", ep.Subsets, tt.want)
			}
			if _, ok := ep.Labels[corev1.IsHeadlessService]; ok != tt.headles || ep.Labels["app"] != "web" {
				t.Errorf("labels %v", ep.Labels)
			}
			// The first sync of a Service is triggered by its creation.
			if got := ep.Annotations[corev1.EndpointsLastChangeTriggerTime]; got != created.UTC().Format(time.RFC3339Nano) {
				t.Errorf("trigger time %q", got)
			}
		})
	}
}

// TestSyncWrites pins when the controller writes: not for Services
// without a selector or of type ExternalName, not when nothing changed;
// the Endpoints go with their Service.
func TestSyncWrites(t *testing.T) {
	current := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", ResourceVersion: "5", Labels: map[string]string{"app": "web"}},
		Subsets:    []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{addr("a", "10.1.0.1")}, Ports: webPorts}},
	}
	tests := []struct {
		name  string
		objs  []runtime.Object
		verbs string
	}{
		{name: "no selector", objs: []runtime.Object{service(func(s *corev1.Service) { s.Spec.Selector = nil }), current}},
		{name: "external name", objs: []runtime.Object{service(func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeExternalName })}},
		{name: "unchanged", objs: []runtime.Object{service(), pod("a", "10.1.0.1", true), current}},
		{name: "pod became unready", objs: []runtime.Object{service(), pod("a", "10.1.0.1", false), current}, verbs: "[update]"},
		{name: "service label changed", objs: []runtime.Object{service(func(s *corev1.Service) { s.Labels["tier"] = "x" }), pod("a", "10.1.0.1", true), current}, verbs: "[update]"},
		{name: "new", objs: []runtime.Object{service()}, verbs: "[create]"},
		{name: "service gone", objs: []runtime.Object{current}, verbs: "[delete]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, client := newTest(t, tt.objs...)
			client.ClearActions()
			if err := c.sync(context.Background(), "ns/web"); err != nil {
				t.Fatal(err)
			}
			var verbs []string
			for _, a := range client.Actions() {
				verbs = append(verbs, a.GetVerb())
			}
			if got := fmt.Sprint(verbs); (tt.verbs == "" && len(verbs) > 0) || (tt.verbs != "" && got != tt.verbs) {
				t.Errorf("wrote %v, want %q", verbs, tt.verbs)
			}
			if tt.name == "service gone" {
				if _, err := client.CoreV1().Endpoints("ns").Get(context.Background(), "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					t.Errorf("endpoints still there: %v", err)
				}
			}
		})
	}
}

// TestTruncate pins the over-capacity cut: at most 1000 addresses, ready
// ones kept first, and the annotation set.
func TestTruncate(t *testing.T) {
	objs := []runtime.Object{service()}
	for i := range 1100 {
		objs = append(objs, pod(fmt.Sprintf("p%04d", i), fmt.Sprintf("10.1.%d.%d", i/250, i%250+1), i < 600))
	}
	c, client := newTest(t, objs...)
	if err := c.sync(context.Background(), "ns/web"); err != nil {
		t.Fatal(err)
	}
	ep, err := client.CoreV1().Endpoints("ns").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready, notReady := countAddresses(ep.Subsets)
	if ready != 600 || notReady != 400 || ep.Annotations[corev1.EndpointsOverCapacity] != "truncated" {
		t.Errorf("ready %d notReady %d annotations %v", ready, notReady, ep.Annotations)
	}
}

// TestPodChangesQueueServices pins which pod updates concern a Service.
func TestPodChangesQueueServices(t *testing.T) {
	base := pod("a", "10.1.0.1", true)
	base.ResourceVersion = "1"
	tests := []struct {
		name   string
		mutate func(*corev1.Pod)
		queued int
	}{
		{name: "annotation only", mutate: func(p *corev1.Pod) { p.Annotations = map[string]string{"x": "y"} }},
		{name: "readiness", mutate: func(p *corev1.Pod) { p.Status.Conditions[0].Status = corev1.ConditionFalse }, queued: 1},
		{name: "IP", mutate: func(p *corev1.Pod) { p.Status.PodIPs = []corev1.PodIP{{IP: "10.1.0.9"}} }, queued: 1},
		{name: "left the selector", mutate: func(p *corev1.Pod) { p.Labels = nil }, queued: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTest(t, service())
			cur := base.DeepCopy()
			cur.ResourceVersion = "2"
			tt.mutate(cur)
			endpointutil.PodHandler(c.services, c.queue.Add, nil).OnUpdate(base, cur)
			if c.queue.Len() != tt.queued {
				t.Errorf("queued %d, want %d", c.queue.Len(), tt.queued)
			}
		})
	}
}

// TestLeftoversQueued: at start every Endpoints is looked at once (so
// that those whose Service went while no controller ran are deleted),
// but leader-election records, which have no Service, are left alone.
func TestLeftoversQueued(t *testing.T) {
	orphan := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: "ns"}}
	lease := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "lease", Namespace: "ns",
		Annotations: map[string]string{resourcelock.LeaderElectionRecordAnnotationKey: "{}"}}}
	c, client := newTest(t, orphan, lease)
	c.queueLeftovers()
	if c.queue.Len() != 1 {
		t.Fatalf("queued %d, want 1", c.queue.Len())
	}
	key, _ := c.queue.Get()
	if err := c.sync(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().Endpoints("ns").Get(context.Background(), "orphan", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("orphan endpoints kept: %v", err)
	}
}
