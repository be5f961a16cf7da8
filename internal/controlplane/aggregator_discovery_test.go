package controlplane

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
)

const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// discoveryServer is an aggregated server's discovery: the aggregated
// document (with an ETag) when aggregated, else only the legacy one.
type discoveryServer struct {
	aggregated bool
	mu         sync.Mutex
	notMod     int // 304s answered
	users      []string
}

func (d *discoveryServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	d.users = append(d.users, r.Header.Get("X-Remote-User"))
	d.mu.Unlock()
	switch {
	case r.URL.Path == "/apis" && d.aggregated && strings.Contains(r.Header.Get("Accept"), "as=APIGroupDiscoveryList"):
		if r.Header.Get("If-None-Match") == `"e1"` {
			d.mu.Lock()
			d.notMod++
			d.mu.Unlock()
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", aggregatedAccept)
		w.Header().Set("ETag", `"e1"`)
		json.NewEncoder(w).Encode(apidiscoveryv2.APIGroupDiscoveryList{Items: []apidiscoveryv2.APIGroupDiscovery{{
			ObjectMeta: metav1.ObjectMeta{Name: "wardle.example.com"},
			Versions: []apidiscoveryv2.APIVersionDiscovery{{Version: "v1alpha1", Resources: []apidiscoveryv2.APIResourceDiscovery{{
				Resource: "flunders", Scope: apidiscoveryv2.ScopeNamespace, Verbs: []string{"get", "list"},
				ResponseKind: &metav1.GroupVersionKind{Group: "wardle.example.com", Version: "v1alpha1", Kind: "Flunder"},
				Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status", Verbs: []string{"get"}}},
			}}}},
		}}})
	case r.URL.Path == "/apis":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(metav1.APIGroupList{Groups: []metav1.APIGroup{{Name: "wardle.example.com"}}})
	case r.URL.Path == "/apis/wardle.example.com/v1alpha1":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(metav1.APIResourceList{GroupVersion: "wardle.example.com/v1alpha1", APIResources: []metav1.APIResource{
			{Name: "flunders", SingularName: "flunder", Namespaced: true, Kind: "Flunder", Verbs: []string{"get", "list"}},
			{Name: "flunders/status", Namespaced: true, Kind: "Flunder", Verbs: []string{"get"}},
		}})
	default:
		http.NotFound(w, r)
	}
}

// recordedRoutes is a mux that records what is routed.
type recordedRoutes struct{ paths map[string]bool }

func (r *recordedRoutes) Handle(path string, _ http.Handler) { r.paths[path] = true }
func (r *recordedRoutes) Unregister(path string)             { delete(r.paths, path) }

func wardleAPIService(available bool) *apiregistrationv1.APIService {
	s := &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1.wardle.example.com", ResourceVersion: "1"},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: "wardle.example.com", Version: "v1alpha1", InsecureSkipTLSVerify: true,
			GroupPriorityMinimum: 2000, VersionPriority: 200,
			Service: &apiregistrationv1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptr.To[int32](443)},
		},
	}
	if available {
		s.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue}}
	}
	return s
}

// TestRemoteDiscovery pins how upstream's discovery aggregation fetches
// a remote APIService's discovery through its proxy, as
// system:kube-aggregator: the aggregated document when the server has
// one (then 304 on an unchanged ETag), else its legacy APIResourceList
// converted; a failing fetch (503 of an unavailable APIService) leaves
// the version Stale without resources; the group is routed while any of
// its versions is remote, and removed with the APIService.
func TestRemoteDiscovery(t *testing.T) {
	flunders := []apidiscoveryv2.APIResourceDiscovery{{
		Resource: "flunders", Scope: apidiscoveryv2.ScopeNamespace, Verbs: []string{"get", "list"},
		ResponseKind: &metav1.GroupVersionKind{Group: "wardle.example.com", Version: "v1alpha1", Kind: "Flunder"},
		Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status", Verbs: []string{"get"}, ResponseKind: &metav1.GroupVersionKind{}}},
	}}
	legacyFlunders := []apidiscoveryv2.APIResourceDiscovery{{
		Resource: "flunders", Scope: apidiscoveryv2.ScopeNamespace, Verbs: []string{"get", "list"}, SingularResource: "flunder",
		ResponseKind: &metav1.GroupVersionKind{Kind: "Flunder"},
		Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status", Verbs: []string{"get"}, ResponseKind: &metav1.GroupVersionKind{Kind: "Flunder"}}},
	}}
	tests := []struct {
		name          string
		aggregated    bool
		available     bool
		wantResources []apidiscoveryv2.APIResourceDiscovery
		wantFresh     apidiscoveryv2.DiscoveryFreshness
		wantNotMod    int
	}{
		{name: "aggregated", aggregated: true, available: true, wantResources: flunders, wantFresh: apidiscoveryv2.DiscoveryFreshnessCurrent, wantNotMod: 1},
		{name: "legacy", available: true, wantResources: legacyFlunders, wantFresh: apidiscoveryv2.DiscoveryFreshnessCurrent},
		{name: "unavailable", aggregated: true, wantFresh: apidiscoveryv2.DiscoveryFreshnessStale},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			remote := &discoveryServer{aggregated: tc.aggregated}
			srv := httptest.NewTLSServer(remote)
			defer srv.Close()
			u, _ := url.Parse(srv.URL)
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			svc := wardleAPIService(tc.available)
			if err := indexer.Add(svc); err != nil {
				t.Fatal(err)
			}
			logger := slog.New(slog.DiscardHandler)
			routes := &recordedRoutes{paths: map[string]bool{}}
			d := &remoteDiscovery{
				manager: discovery.NewManager(discovery.Options{}), lister: apiregistrationlisters.NewAPIServiceLister(indexer),
				proxies: &proxyCache{resolver: fixedResolver{url: u}, logger: logger},
				routes:  routes, queue: newDiscoveryQueue(), logger: logger, cache: map[string]fetchedDiscovery{},
			}
			defer d.queue.ShutDown()
			for range 2 { // the second one revalidates with the ETag
				err := d.sync(t.Context(), svc.Name)
				if (err != nil) != (tc.wantFresh == apidiscoveryv2.DiscoveryFreshnessStale) {
					t.Fatalf("sync: %v", err)
				}
			}
			got := aggregatedGroups(t, d.manager)
			want := []apidiscoveryv2.APIGroupDiscovery{{
				ObjectMeta: metav1.ObjectMeta{Name: "wardle.example.com"},
				Versions:   []apidiscoveryv2.APIVersionDiscovery{{Version: "v1alpha1", Resources: tc.wantResources, Freshness: tc.wantFresh}},
			}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("aggregated discovery (-want +got):\n%s", diff)
			}
			if remote.notMod != tc.wantNotMod {
				t.Errorf("304s = %d, want %d", remote.notMod, tc.wantNotMod)
			}
			for _, user := range remote.users {
				if user != "system:kube-aggregator" {
					t.Errorf("fetched as %q", user)
				}
			}
			if !routes.paths["/apis/wardle.example.com"] {
				t.Errorf("group not routed: %v", routes.paths)
			}

			if err := indexer.Delete(svc); err != nil {
				t.Fatal(err)
			}
			if err := d.sync(t.Context(), svc.Name); err != nil {
				t.Fatal(err)
			}
			if got := aggregatedGroups(t, d.manager); len(got) != 0 || len(routes.paths) != 0 {
				t.Errorf("after deletion: groups %v, routes %v", got, routes.paths)
			}
		})
	}
}

func aggregatedGroups(t *testing.T, m *discovery.Manager) []apidiscoveryv2.APIGroupDiscovery {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/apis", nil)
	req.Header.Set("Accept", aggregatedAccept)
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, req)
	var list apidiscoveryv2.APIGroupDiscoveryList
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		t.Fatalf("%s: %v", rec.Body, err)
	}
	return list.Items
}
