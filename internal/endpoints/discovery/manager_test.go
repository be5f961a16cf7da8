package discovery_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	kdiscovery "github.com/kapi-dev/kapi/internal/endpoints/discovery"
)

var (
	coreResources = []metav1.APIResource{
		{Name: "configmaps", SingularName: "configmap", Namespaced: true, Kind: "ConfigMap", Verbs: []string{"get", "list"}, ShortNames: []string{"cm"}},
		{Name: "namespaces", SingularName: "namespace", Kind: "Namespace", Verbs: []string{"get"}},
		{Name: "namespaces/status", Kind: "Namespace", Verbs: []string{"get", "patch", "update"}},
	}
	appsResources = []metav1.APIResource{
		{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment", Verbs: []string{"get"}, Categories: []string{"all"}},
		{Name: "deployments/scale", Namespaced: true, Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: []string{"get"}},
	}
)

const (
	aggregatedJSON  = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	aggregatedProto = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
)

func newManager() *kdiscovery.Manager {
	m := kdiscovery.NewManager(kdiscovery.Options{})
	m.AddGroupVersion("", metav1.GroupVersionForDiscovery{GroupVersion: "v1", Version: "v1"}, coreResources)
	m.AddGroupVersion("apps", metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"}, appsResources)
	m.AddGroupVersion("example.com", metav1.GroupVersionForDiscovery{GroupVersion: "example.com/v2", Version: "v2"}, nil)
	m.AddGroupVersion("example.com", metav1.GroupVersionForDiscovery{GroupVersion: "example.com/v1", Version: "v1"}, nil)
	return m
}

func get(h http.Handler, method, path string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestLegacyDocuments(t *testing.T) {
	m := newManager()
	cases := []struct {
		method, path string
		accept       string
		wantCode     int
		wantBody     string
	}{
		{"GET", "/api", "", 200, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"example.com:80"}]}` + "\n"},
		{"GET", "/api/", "application/json", 200, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"example.com:80"}]}` + "\n"},
		{"GET", "/apis", "", 200, `{"kind":"APIGroupList","apiVersion":"v1","groups":[` +
			`{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},` +
			`{"name":"example.com","versions":[{"groupVersion":"example.com/v2","version":"v2"},{"groupVersion":"example.com/v1","version":"v1"}],"preferredVersion":{"groupVersion":"example.com/v2","version":"v2"}}]}` + "\n"},
		{"GET", "/apis/apps", "", 200, `{"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}` + "\n"},
		{"GET", "/apis/nope", "", 404, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}` + "\n"},
		{"GET", "/apis/", "application/json", 200, ""},
		{"GET", "/apis/apps/v1/x", "", 404, ""},
		{"POST", "/apis", "", 405, ""},
		{"GET", "/apis", "text/html", 406, ""},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path+" "+tc.accept, func(t *testing.T) {
			rec := get(m, tc.method, tc.path, "Accept", tc.accept)
			if rec.Code != tc.wantCode {
				t.Fatalf("code %d, want %d: %s", rec.Code, tc.wantCode, rec.Body)
			}
			if tc.wantBody != "" {
				if diff := cmp.Diff(tc.wantBody, rec.Body.String()); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestServerAddress(t *testing.T) {
	m := kdiscovery.NewManager(kdiscovery.Options{ServerAddress: "10.0.0.1:6443"})
	if body := get(m, "GET", "/api").Body.String(); !strings.Contains(body, `"serverAddress":"10.0.0.1:6443"`) {
		t.Errorf("body %s", body)
	}
}

func decodeAggregated(t *testing.T, rec *httptest.ResponseRecorder) *apidiscoveryv2.APIGroupDiscoveryList {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := apidiscoveryv2.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	obj, _, err := serializer.NewCodecFactory(scheme).UniversalDeserializer().Decode(rec.Body.Bytes(), nil, nil)
	if err != nil {
		t.Fatalf("decoding %q: %v", rec.Body, err)
	}
	return obj.(*apidiscoveryv2.APIGroupDiscoveryList)
}

func TestAggregated(t *testing.T) {
	m := newManager()
	for _, accept := range []string{aggregatedJSON, aggregatedProto} {
		t.Run(accept, func(t *testing.T) {
			// client-go's header, with the peer profile first
			rec := get(m, "GET", "/apis", "Accept", strings.Replace(accept, "List", "List;profile=nopeer", 1)+","+accept+",application/json")
			if rec.Code != 200 || rec.Header().Get("Content-Type") != accept {
				t.Fatalf("%d %q", rec.Code, rec.Header().Get("Content-Type"))
			}
			list := decodeAggregated(t, rec)
			var names []string
			for _, g := range list.Items {
				names = append(names, g.Name)
			}
			if diff := cmp.Diff([]string{"apps", "example.com"}, names); diff != "" {
				t.Errorf("groups (-want +got):\n%s", diff)
			}
			want := apidiscoveryv2.APIVersionDiscovery{Version: "v1", Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent, Resources: []apidiscoveryv2.APIResourceDiscovery{{
				Resource: "deployments", SingularResource: "deployment", Scope: apidiscoveryv2.ScopeNamespace,
				ResponseKind: &metav1.GroupVersionKind{Kind: "Deployment"}, Verbs: []string{"get"}, Categories: []string{"all"},
				Subresources: []apidiscoveryv2.APISubresourceDiscovery{{
					Subresource: "scale", ResponseKind: &metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Verbs: []string{"get"},
				}},
			}}}
			if diff := cmp.Diff(want, list.Items[0].Versions[0]); diff != "" {
				t.Errorf("apps/v1 (-want +got):\n%s", diff)
			}
			if v := list.Items[1].Versions; len(v) != 2 || v[0].Version != "v2" {
				t.Errorf("example.com versions %+v, want v2 first", v)
			}
		})
	}
	rec := get(m, "GET", "/api", "Accept", aggregatedJSON)
	list := decodeAggregated(t, rec)
	if len(list.Items) != 1 || list.Items[0].Name != "" || len(list.Items[0].Versions[0].Resources) != 2 {
		t.Fatalf("core %+v", list)
	}
	ns := list.Items[0].Versions[0].Resources[1]
	if ns.Scope != apidiscoveryv2.ScopeCluster || len(ns.Subresources) != 1 || ns.Subresources[0].ResponseKind.Kind != "Namespace" {
		t.Errorf("namespaces %+v", ns)
	}
}

func TestAggregatedETag(t *testing.T) {
	m := newManager()
	first := get(m, "GET", "/apis", "Accept", aggregatedJSON)
	etag := first.Header().Get("ETag")
	if etag == "" || etag[0] != '"' || first.Header().Get("Vary") != "Accept" || first.Header().Get("Cache-Control") != "public" {
		t.Fatalf("headers %v", first.Header())
	}
	if rec := get(m, "GET", "/apis", "Accept", aggregatedJSON, "If-None-Match", etag); rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Errorf("If-None-Match: %d %q, want 304", rec.Code, rec.Body)
	}
	m.RemoveGroupVersion(schema.GroupVersion{Group: "example.com", Version: "v1"})
	rec := get(m, "GET", "/apis", "Accept", aggregatedJSON, "If-None-Match", etag)
	if rec.Code != http.StatusOK || rec.Header().Get("ETag") == etag {
		t.Errorf("after a change: %d etag %s, want 200 and a new etag", rec.Code, rec.Header().Get("ETag"))
	}
	m.RemoveGroup("example.com")
	if rec := get(m, "GET", "/apis/example.com", ""); rec.Code != http.StatusNotFound {
		t.Errorf("removed group: %d", rec.Code)
	}
	if items := decodeAggregated(t, get(m, "GET", "/apis", "Accept", aggregatedJSON)).Items; len(items) != 1 {
		t.Errorf("groups after removal: %d", len(items))
	}
}

func TestToDiscoveryResources(t *testing.T) {
	if _, err := kdiscovery.ToDiscoveryResources([]metav1.APIResource{
		{Name: "things", Namespaced: true}, {Name: "things/status"},
	}); err == nil {
		t.Error("scope mismatch accepted")
	}
	got, err := kdiscovery.ToDiscoveryResources([]metav1.APIResource{{Name: "orphans/status", Verbs: []string{"get"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []apidiscoveryv2.APIResourceDiscovery{{
		Resource: "orphans", Scope: apidiscoveryv2.ScopeCluster, ResponseKind: &metav1.GroupVersionKind{},
		Subresources: []apidiscoveryv2.APISubresourceDiscovery{{Subresource: "status", ResponseKind: &metav1.GroupVersionKind{}, Verbs: []string{"get"}}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestClientGo reads the documents with client-go's discovery client,
// which asks for aggregated discovery as kubectl does.
func TestClientGo(t *testing.T) {
	srv := httptest.NewServer(newManager())
	defer srv.Close()
	client, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	groups, resources, err := client.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 3 || groups[0].Name != "" || groups[2].PreferredVersion.Version != "v2" {
		t.Errorf("groups %+v", groups)
	}
	found := map[string]bool{}
	for _, list := range resources {
		for _, r := range list.APIResources {
			found[list.GroupVersion+" "+r.Name] = true
		}
	}
	for _, want := range []string{"v1 configmaps", "v1 namespaces/status", "apps/v1 deployments", "apps/v1 deployments/scale"} {
		if !found[want] {
			t.Errorf("client-go did not find %s in %v", want, found)
		}
	}
}
