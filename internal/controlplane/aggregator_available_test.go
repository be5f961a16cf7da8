package controlplane

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	"k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/fake"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"
	"k8s.io/utils/ptr"
)

// availabilityFixture is an availability controller over indexers and a
// fake APIService client.
type availabilityFixture struct {
	a         *availability
	client    *fake.Clientset
	services  cache.Indexer
	slices    cache.Indexer
	apiSvcIdx cache.Indexer
}

func newAvailabilityFixture(t *testing.T, local bool, s *apiregistrationv1.APIService, resolver serviceResolver) *availabilityFixture {
	t.Helper()
	f := &availabilityFixture{
		client:    fake.NewClientset(s),
		services:  cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}),
		apiSvcIdx: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}),
	}
	inf := cache.NewSharedIndexInformer(&cache.ListWatch{}, &discoveryv1.EndpointSlice{}, 0, cache.Indexers{})
	if err := addEndpointSliceIndex(inf); err != nil {
		t.Fatal(err)
	}
	f.slices = inf.GetIndexer()
	if err := f.apiSvcIdx.Add(s); err != nil {
		t.Fatal(err)
	}
	f.a = &availability{
		local: local, lister: apiregistrationlisters.NewAPIServiceLister(f.apiSvcIdx), client: f.client.ApiregistrationV1(),
		services: corelisters.NewServiceLister(f.services), slices: f.slices, resolver: resolver,
		discovery: newDiscoveryClient(nil), recheck: time.Hour,
		queue: newAvailabilityQueue("test"),
	}
	t.Cleanup(f.a.queue.ShutDown)
	return f
}

func remoteAPIService() *apiregistrationv1.APIService {
	return &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1.example.com"},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: "example.com", Version: "v1",
			Service: &apiregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptr.To[int32](443)},
		},
	}
}

func clusterIPService(port int32) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "svc"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.0.0.9",
			Ports: []corev1.ServicePort{{Name: "https", Port: port}}},
	}
}

func endpointSlice(ready bool) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "svc-abc", Labels: map[string]string{discoveryv1.LabelServiceName: "svc"}},
		Endpoints:  []discoveryv1.Endpoint{{Addresses: []string{"10.1.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(ready)}}},
		Ports:      []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To[int32](8443)}},
	}
}

// TestAvailabilityReasons pins the remote check's conditions, reasons
// and messages, in upstream's order (kube-aggregator
// pkg/controllers/status/remote): the Service, its port and
// EndpointSlices for a cluster IP Service, then the discovery GET.
func TestAvailabilityReasons(t *testing.T) {
	discovery := func(status int) *url.URL {
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/apis/example.com/v1" || r.Header.Get("X-Remote-User") != "system:kube-aggregator" {
				http.NotFound(w, r)
				return
			}
			w.WriteHeader(status)
		}))
		t.Cleanup(srv.Close)
		u, _ := url.Parse(srv.URL)
		return u
	}
	ok, forbidden := discovery(http.StatusOK), discovery(http.StatusForbidden)
	tests := []struct {
		name       string
		objs       []any
		resolver   serviceResolver
		wantStatus apiregistrationv1.ConditionStatus
		wantReason string
		wantMsg    string // prefix
	}{
		{name: "no service", wantStatus: "False", wantReason: "ServiceNotFound", wantMsg: `service/svc in "ns" is not present`},
		{name: "port not served", objs: []any{clusterIPService(8080)}, wantStatus: "False", wantReason: "ServicePortError", wantMsg: `service/svc in "ns" is not listening on port 443`},
		{name: "no slices", objs: []any{clusterIPService(443)}, wantStatus: "False", wantReason: "EndpointsNotFound", wantMsg: `cannot find endpointslices for service/svc in "ns"`},
		{name: "no ready endpoint", objs: []any{clusterIPService(443), endpointSlice(false)}, wantStatus: "False", wantReason: "MissingEndpoints", wantMsg: `endpointslices for service/svc in "ns" have no addresses with port name "https"`},
		{name: "does not resolve", objs: []any{clusterIPService(443), endpointSlice(true)}, resolver: fixedResolver{err: errors.New("no way")}, wantStatus: "False", wantReason: "FailedDiscoveryCheck", wantMsg: "no way"},
		{name: "discovery refused", objs: []any{clusterIPService(443), endpointSlice(true)}, resolver: fixedResolver{url: forbidden}, wantStatus: "False", wantReason: "FailedDiscoveryCheck", wantMsg: "failing or missing response from " + forbidden.String() + "/apis/example.com/v1: bad status from " + forbidden.String() + "/apis/example.com/v1: 403"},
		{name: "passed", objs: []any{clusterIPService(443), endpointSlice(true)}, resolver: fixedResolver{url: ok}, wantStatus: "True", wantReason: "Passed", wantMsg: "all checks passed"},
		{name: "external name: no endpoints checked", objs: []any{&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "svc"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost"}}}, resolver: fixedResolver{url: ok}, wantStatus: "True", wantReason: "Passed", wantMsg: "all checks passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newAvailabilityFixture(t, false, remoteAPIService(), tt.resolver)
			for _, o := range tt.objs {
				idx := f.services
				if _, ok := o.(*discoveryv1.EndpointSlice); ok {
					idx = f.slices
				}
				if err := idx.Add(o); err != nil {
					t.Fatal(err)
				}
			}
			err := f.a.sync(context.Background(), "v1.example.com")
			if (err != nil) != (tt.wantReason == "FailedDiscoveryCheck") {
				t.Errorf("sync error %v: a failed discovery check (only) is retried", err)
			}
			got, err := f.client.ApiregistrationV1().APIServices().Get(context.Background(), "v1.example.com", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c := v1helper.GetAPIServiceConditionByType(got, apiregistrationv1.Available)
			if c == nil || c.Status != tt.wantStatus || c.Reason != tt.wantReason || !strings.HasPrefix(c.Message, tt.wantMsg) {
				t.Errorf("condition %+v, want %s %s %q", c, tt.wantStatus, tt.wantReason, tt.wantMsg)
			}
		})
	}
}

// TestAvailabilityWritesOnlyChanges pins upstream's status writes: none
// when the condition is unchanged, and a change of reason within the
// same status keeps lastTransitionTime.
func TestAvailabilityWritesOnlyChanges(t *testing.T) {
	since := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := remoteAPIService()
	s.Status.Conditions = []apiregistrationv1.APIServiceCondition{{
		Type: apiregistrationv1.Available, Status: "False", LastTransitionTime: since,
		Reason: "ServiceNotFound", Message: `service/svc in "ns" is not present`,
	}}
	f := newAvailabilityFixture(t, false, s, nil)
	if err := f.a.sync(context.Background(), s.Name); err != nil {
		t.Fatal(err)
	}
	if n := len(f.client.Actions()); n != 0 {
		t.Errorf("unchanged condition: %d API calls, want none: %v", n, f.client.Actions())
	}
	if err := f.services.Add(clusterIPService(443)); err != nil {
		t.Fatal(err)
	}
	if err := f.a.sync(context.Background(), s.Name); err != nil {
		t.Fatal(err)
	}
	got, err := f.client.ApiregistrationV1().APIServices().Get(context.Background(), s.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := v1helper.GetAPIServiceConditionByType(got, apiregistrationv1.Available)
	if c.Reason != "EndpointsNotFound" || !c.LastTransitionTime.Equal(&since) {
		t.Errorf("condition %+v, want EndpointsNotFound with lastTransitionTime %v kept", c, since)
	}
}

// TestLocalAvailability pins the local controller: an APIService without
// a service is Available with reason Local; remote ones are left to the
// remote controller.
func TestLocalAvailability(t *testing.T) {
	local := &apiregistrationv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1.apps"}, Spec: apiregistrationv1.APIServiceSpec{Group: "apps", Version: "v1"}}
	f := newAvailabilityFixture(t, true, local, nil)
	if err := f.a.sync(context.Background(), local.Name); err != nil {
		t.Fatal(err)
	}
	got, _ := f.client.ApiregistrationV1().APIServices().Get(context.Background(), local.Name, metav1.GetOptions{})
	if c := v1helper.GetAPIServiceConditionByType(got, apiregistrationv1.Available); c == nil || c.Status != "True" || c.Reason != "Local" {
		t.Errorf("local condition %+v, want True Local", c)
	}
	r := newAvailabilityFixture(t, true, remoteAPIService(), nil)
	if err := r.a.sync(context.Background(), "v1.example.com"); err != nil || len(r.client.Actions()) != 0 {
		t.Errorf("the local controller touched a remote APIService: %v %v", err, r.client.Actions())
	}
}

// TestAvailabilityEventsEnqueue pins the event path: a change of a
// Service or of an EndpointSlice labelled with its name enqueues the
// remote APIServices that reference it, and no other.
func TestAvailabilityEventsEnqueue(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	other := remoteAPIService()
	other.Name, other.Spec.Group, other.Spec.Service = "v1.other.com", "other.com", &apiregistrationv1.ServiceReference{Namespace: "ns", Name: "elsewhere"}
	for _, s := range []*apiregistrationv1.APIService{remoteAPIService(), other} {
		if err := idx.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	w := &aggregatorWiring{
		apiServices: apiregistrationlisters.NewAPIServiceLister(idx),
		remote:      &availability{queue: newAvailabilityQueue("test")},
	}
	defer w.remote.queue.ShutDown()
	w.rebuildIndex()
	w.enqueueFor("ns", "svc")
	if n := w.remote.queue.Len(); n != 1 {
		t.Fatalf("queue length %d, want 1", n)
	}
	if name, _ := w.remote.queue.Get(); name != "v1.example.com" {
		t.Errorf("enqueued %q, want v1.example.com", name)
	}
	w.enqueueFor("other-ns", "svc")
	if n := w.remote.queue.Len(); n != 0 {
		t.Errorf("a Service nobody references enqueued %d", n)
	}
}
