package endpointutil

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

var t0 = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

func readyPod(name string, at time.Time) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", ResourceVersion: "1", Labels: map[string]string{"app": "web"}},
		Status: corev1.PodStatus{
			PodIPs:     []corev1.PodIP{{IP: "10.0.0.1"}},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at)}},
		},
	}
}

// TestTriggerTime pins upstream's trigger time: the Service's creation
// on its first sync, then the earliest change not yet seen, zero when
// nothing changed.
func TestTriggerTime(t *testing.T) {
	tr := NewTriggerTimeTracker()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", CreationTimestamp: metav1.NewTime(t0)}}
	steps := []struct {
		pods []*corev1.Pod
		want time.Time
	}{
		{pods: []*corev1.Pod{readyPod("a", t0.Add(time.Minute))}, want: t0},
		{pods: []*corev1.Pod{readyPod("a", t0.Add(time.Minute))}},
		{pods: []*corev1.Pod{readyPod("a", t0.Add(3*time.Minute)), readyPod("b", t0.Add(2*time.Minute))}, want: t0.Add(2 * time.Minute)},
		{pods: []*corev1.Pod{readyPod("b", t0.Add(2*time.Minute))}},
	}
	for i, s := range steps {
		if got := tr.Compute(svc, s.pods); !got.Equal(s.want) {
			t.Errorf("step %d: %v, want %v", i, got, s.want)
		}
	}
	tr.Delete("ns", "web")
	if got := tr.Compute(svc, nil); !got.Equal(t0) {
		t.Errorf("after delete: %v", got)
	}
}

// TestSliceTracker pins the stale-cache rules.
func TestSliceTracker(t *testing.T) {
	slice := func(uid string, gen int64) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", UID: types.UID("u" + uid), Generation: gen, Labels: map[string]string{discoveryv1.LabelServiceName: "web"},
		}}
	}
	tr := NewSliceTracker()
	if tr.Stale("ns", "web", nil) || !tr.ShouldSync(slice("1", 1)) {
		t.Fatal("an unknown service is never stale, an unknown slice always synced")
	}
	tr.Update(slice("1", 2))
	tests := []struct {
		name  string
		cache []*discoveryv1.EndpointSlice
		stale bool
	}{
		{name: "cache misses a created slice", stale: true},
		{name: "cache has an older generation", cache: []*discoveryv1.EndpointSlice{slice("1", 1)}, stale: true},
		{name: "cache caught up", cache: []*discoveryv1.EndpointSlice{slice("1", 2)}},
		{name: "cache is ahead", cache: []*discoveryv1.EndpointSlice{slice("1", 3)}},
	}
	for _, tt := range tests {
		if got := tr.Stale("ns", "web", tt.cache); got != tt.stale {
			t.Errorf("%s: stale %v", tt.name, got)
		}
	}
	if tr.ShouldSync(slice("1", 2)) || !tr.ShouldSync(slice("1", 3)) {
		t.Error("own write synced, or another's write not")
	}
	tr.ExpectDeletion(slice("1", 2))
	if !tr.Stale("ns", "web", []*discoveryv1.EndpointSlice{slice("1", 2)}) || tr.Stale("ns", "web", nil) {
		t.Error("a deleted slice still cached is stale; gone it is not")
	}
	if !tr.HandleDeletion(slice("1", 2)) || tr.Has(slice("1", 2)) {
		t.Error("an expected deletion is not reported as unexpected, and forgotten")
	}
	tr.Update(slice("2", 1))
	if tr.HandleDeletion(slice("2", 1)) {
		t.Error("someone else's deletion must resync")
	}
}

// TestFindPort pins targetPort resolution.
func TestFindPort(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}},
		InitContainers: []corev1.Container{
			{Ports: []corev1.ContainerPort{{Name: "init", ContainerPort: 7000, Protocol: corev1.ProtocolTCP}}},
			{RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways), Ports: []corev1.ContainerPort{{Name: "sidecar", ContainerPort: 7001, Protocol: corev1.ProtocolTCP}}},
		},
	}}
	tests := []struct {
		target   intstr.IntOrString
		protocol corev1.Protocol
		want     int // 0: not found
	}{
		{intstr.FromInt32(9090), corev1.ProtocolTCP, 9090},
		{intstr.FromString("http"), corev1.ProtocolTCP, 8080},
		{intstr.FromString("http"), corev1.ProtocolUDP, 0},
		{intstr.FromString("sidecar"), corev1.ProtocolTCP, 7001},
		{intstr.FromString("init"), corev1.ProtocolTCP, 0},
		{intstr.FromString("nope"), corev1.ProtocolTCP, 0},
	}
	for _, tt := range tests {
		got, err := FindPort(pod, &corev1.ServicePort{TargetPort: tt.target, Protocol: tt.protocol})
		if (err != nil) != (tt.want == 0) || got != tt.want {
			t.Errorf("%v/%s: %d, %v", tt.target.String(), tt.protocol, got, err)
		}
	}
}

// TestServicesForPodChange pins which Services a Pod update queues.
func TestServicesForPodChange(t *testing.T) {
	client := fake.NewClientset()
	f := informers.NewSharedInformerFactory(client, 0)
	idx := f.Core().V1().Services().Informer().GetIndexer()
	for name, sel := range map[string]map[string]string{"web": {"app": "web"}, "api": {"app": "api"}, "none": nil} {
		if err := idx.Add(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: corev1.ServiceSpec{Selector: sel}}); err != nil {
			t.Fatal(err)
		}
	}
	lister := f.Core().V1().Services().Lister()
	old := readyPod("a", t0)
	tests := []struct {
		name   string
		mutate func(*corev1.Pod)
		want   []string
	}{
		{name: "same resourceVersion", mutate: func(p *corev1.Pod) { p.ResourceVersion = "1"; p.Status.PodIPs = nil }},
		{name: "annotations only", mutate: func(p *corev1.Pod) { p.Annotations = map[string]string{"a": "b"} }},
		{name: "not ready", mutate: func(p *corev1.Pod) { p.Status.Conditions[0].Status = corev1.ConditionFalse }, want: []string{"ns/web"}},
		{name: "relabelled", mutate: func(p *corev1.Pod) { p.Labels = map[string]string{"app": "api"} }, want: []string{"ns/api", "ns/web"}},
		{name: "relabelled and not ready", mutate: func(p *corev1.Pod) {
			p.Labels = map[string]string{"app": "web", "x": "y"}
			p.Status.Conditions[0].Status = corev1.ConditionFalse
		}, want: []string{"ns/web"}},
		{name: "relabelled, same services", mutate: func(p *corev1.Pod) { p.Labels = map[string]string{"app": "web", "x": "y"} }},
		{name: "terminating", mutate: func(p *corev1.Pod) { p.DeletionTimestamp = ptr.To(metav1.NewTime(t0)) }, want: []string{"ns/web"}},
	}
	for _, tt := range tests {
		cur := old.DeepCopy()
		cur.ResourceVersion = "2"
		tt.mutate(cur)
		got, err := ServicesForPodChange(lister, old, cur)
		if err != nil {
			t.Fatal(err)
		}
		keys := sets.List(got)
		if fmt.Sprint(keys) != fmt.Sprint(tt.want) && !(len(keys) == 0 && len(tt.want) == 0) {
			t.Errorf("%s: %v, want %v", tt.name, keys, tt.want)
		}
	}
}

// TestEndpointSet pins endpoint identity: addresses (any order),
// hostname and target, not conditions.
func TestEndpointSet(t *testing.T) {
	ep := func(ready bool, addrs ...string) *discoveryv1.Endpoint {
		return &discoveryv1.Endpoint{Addresses: addrs, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			TargetRef: &corev1.ObjectReference{Namespace: "ns", Name: "a", ResourceVersion: "7"}}
	}
	s := EndpointSet{}
	s.Insert(ep(true, "10.0.0.2", "10.0.0.1"))
	got := s.Get(ep(false, "10.0.0.1", "10.0.0.2"))
	if got == nil || EndpointsEqualBeyondKey(got, ep(false, "10.0.0.1", "10.0.0.2")) || !EndpointsEqualBeyondKey(got, ep(true, "10.0.0.1")) {
		t.Errorf("identity or comparison wrong: %+v", got)
	}
	if PortsKey([]discoveryv1.EndpointPort{{Name: ptr.To("b")}, {Name: ptr.To("a")}}) != PortsKey([]discoveryv1.EndpointPort{{Name: ptr.To("a")}, {Name: ptr.To("b")}}) {
		t.Error("port order matters")
	}
	if SlicePrefix("web") != "web-" || SlicePrefix(strings.Repeat("a", 254)) != strings.Repeat("a", 254) {
		t.Error("slice prefix")
	}
}
