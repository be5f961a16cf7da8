package endpointslicemirroring

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

func service(selector map[string]string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "ext", Namespace: "ns"},
		Spec:       corev1.ServiceSpec{Selector: selector, Ports: []corev1.ServicePort{{Port: 80}}},
	}
}

func endpoints(mutate ...func(*corev1.Endpoints)) *corev1.Endpoints {
	ep := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{
			Name: "ext", Namespace: "ns", UID: "ep-uid", Labels: map[string]string{"team": "a"},
			Annotations: map[string]string{"note": "x", corev1.EndpointsLastChangeTriggerTime: "2026-11-28T00:00:00Z"},
		},
		Subsets: []corev1.EndpointSubset{{
			Addresses:         []corev1.EndpointAddress{{IP: "192.168.0.1"}, {IP: "fd00::1"}},
			NotReadyAddresses: []corev1.EndpointAddress{{IP: "192.168.0.2", Hostname: "two"}},
			Ports:             []corev1.EndpointPort{{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP}},
		}},
	}
	for _, m := range mutate {
		m(ep)
	}
	return ep
}

func mirrored(name string, t discoveryv1.AddressType) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{
			discoveryv1.LabelServiceName: "ext", discoveryv1.LabelManagedBy: ControllerName,
		}},
		AddressType: t,
	}
}

type env struct {
	c        *Controller
	client   *fake.Clientset
	recorder *events.FakeRecorder
}

func newEnv(t *testing.T, maxPerSubset int, objs ...runtime.Object) *env {
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
	rec := events.NewFakeRecorder(10)
	c, err := New(client, f.Core().V1().Endpoints(), f.Core().V1().Services(), f.Discovery().V1().EndpointSlices(), maxPerSubset, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *corev1.Service:
			err = f.Core().V1().Services().Informer().GetIndexer().Add(o)
		case *corev1.Endpoints:
			err = f.Core().V1().Endpoints().Informer().GetIndexer().Add(o)
		case *discoveryv1.EndpointSlice:
			err = f.Discovery().V1().EndpointSlices().Informer().GetIndexer().Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	client.ClearActions()
	return &env{c: c, client: client, recorder: rec}
}

// summary renders the mirrored slices: type, ports and endpoints with
// their ready condition.
func (e *env) summary(t *testing.T) []string {
	t.Helper()
	list, err := e.client.DiscoveryV1().EndpointSlices("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range list.Items {
		var eps []string
		for _, ep := range s.Endpoints {
			eps = append(eps, fmt.Sprintf("%s:%v", ep.Addresses[0], *ep.Conditions.Ready))
		}
		slices.Sort(eps)
		out = append(out, fmt.Sprintf("%s %d %v", s.AddressType, len(s.Ports), eps))
	}
	slices.Sort(out)
	return out
}

// TestMirror pins what upstream mirrors, and what not.
func TestMirror(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		objs   []runtime.Object
		want   []string
		events string
	}{{
		name: "selector-less service: a slice per address type",
		objs: []runtime.Object{service(nil), endpoints()},
		want: []string{"IPv4 1 [192.168.0.1:true 192.168.0.2:false]", "IPv6 1 [fd00::1:true]"},
	}, {
		name: "skip-mirror label: mirrored slices removed",
		objs: []runtime.Object{service(nil), endpoints(func(e *corev1.Endpoints) { e.Labels[discoveryv1.LabelSkipMirror] = "true" }), mirrored("old", discoveryv1.AddressTypeIPv4)},
	}, {
		name: "leader election record",
		objs: []runtime.Object{service(nil), endpoints(func(e *corev1.Endpoints) { e.Annotations[resourcelock.LeaderElectionRecordAnnotationKey] = "{}" })},
	}, {
		name: "service with a selector: mirrored slices removed",
		objs: []runtime.Object{service(map[string]string{"app": "x"}), endpoints(), mirrored("old", discoveryv1.AddressTypeIPv4)},
	}, {
		name: "no service",
		objs: []runtime.Object{endpoints(), mirrored("old", discoveryv1.AddressTypeIPv4)},
	}, {
		name:   "over the per-subset limit, ready first",
		max:    2,
		objs:   []runtime.Object{service(nil), endpoints()},
		want:   []string{"IPv4 1 [192.168.0.1:true]", "IPv6 1 [fd00::1:true]"},
		events: "Warning TooManyAddressesToMirror A max of 2 addresses can be mirrored to EndpointSlices per Endpoints subset. 1 addresses were skipped",
	}, {
		name: "invalid IP skipped",
		objs: []runtime.Object{service(nil), endpoints(func(e *corev1.Endpoints) {
			e.Subsets[0].Addresses = []corev1.EndpointAddress{{IP: "not-an-ip"}, {IP: "192.168.0.1"}}
		})},
		want:   []string{"IPv4 1 [192.168.0.1:true 192.168.0.2:false]"},
		events: "Warning InvalidIPAddress Skipped 1 invalid IP addresses when mirroring to EndpointSlices",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.max, tt.objs...)
			if err := e.c.sync(context.Background(), "ns/ext"); err != nil {
				t.Fatal(err)
			}
			if got := e.summary(t); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("slices %v, want %v", got, tt.want)
			}
			var evs []string
			for len(e.recorder.Events) > 0 {
				evs = append(evs, <-e.recorder.Events)
			}
			if got := strings.Join(evs, "\n"); got != tt.events {
				t.Errorf("events %q, want %q", got, tt.events)
			}
		})
	}
}

// TestMirroredSliceShape pins the metadata: the Endpoints' labels and
// annotations (but the trigger time), managed-by, owner, and that a
// second sync over its own result writes nothing.
func TestMirroredSliceShape(t *testing.T) {
	ep := endpoints(func(e *corev1.Endpoints) { e.Subsets[0].Addresses = e.Subsets[0].Addresses[:1] })
	e := newEnv(t, 0, service(nil), ep)
	ctx := context.Background()
	if err := e.c.sync(ctx, "ns/ext"); err != nil {
		t.Fatal(err)
	}
	list, err := e.client.DiscoveryV1().EndpointSlices("ns").List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("slices %v (%v)", list, err)
	}
	s := list.Items[0]
	if s.GenerateName != "ext-" || s.Labels["team"] != "a" || s.Labels[discoveryv1.LabelManagedBy] != ControllerName || s.Labels[discoveryv1.LabelServiceName] != "ext" {
		t.Errorf("meta %+v", s.ObjectMeta)
	}
	if _, ok := s.Annotations[corev1.EndpointsLastChangeTriggerTime]; ok || s.Annotations["note"] != "x" {
		t.Errorf("annotations %v", s.Annotations)
	}
	if o := s.OwnerReferences; len(o) != 1 || o[0].Kind != "Endpoints" || o[0].UID != "ep-uid" || !*o[0].Controller {
		t.Errorf("owners %+v", o)
	}
	if *s.Endpoints[len(s.Endpoints)-1].Hostname != "two" {
		t.Errorf("endpoints %+v", s.Endpoints)
	}
	again := newEnv(t, 0, service(nil), ep, &s)
	if err := again.c.sync(ctx, "ns/ext"); err != nil {
		t.Fatal(err)
	}
	if a := again.client.Actions(); len(a) != 0 {
		t.Errorf("resync wrote %v", a)
	}
}
