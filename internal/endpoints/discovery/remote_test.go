package discovery_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	kdiscovery "github.com/kapi-dev/kapi/internal/endpoints/discovery"
)

// remoteVersion is a remote group version with one cluster resource.
func remoteVersion(groupPrio, versionPrio int32, fresh apidiscoveryv2.DiscoveryFreshness) kdiscovery.RemoteVersion {
	return kdiscovery.RemoteVersion{GroupPriority: groupPrio, VersionPriority: versionPrio, Discovery: apidiscoveryv2.APIVersionDiscovery{
		Resources: []apidiscoveryv2.APIResourceDiscovery{{Resource: "flunders", Scope: apidiscoveryv2.ScopeCluster, Verbs: []string{"get"}, ResponseKind: &metav1.GroupVersionKind{Kind: "Flunder"}}},
		Freshness: fresh,
	}}
}

// TestRemoteGroupOrder pins where remote groups and versions appear, as
// upstream's aggregator sorts APIServices (SortedByGroupAndVersion):
// groupPriorityMinimum descending then group name, versions by
// versionPriority descending then Kubernetes version order (v1 >
// v1beta2 > v1beta1 > v1alpha1), the first version preferred.
func TestRemoteGroupOrder(t *testing.T) {
	m := newManager()
	prio := map[string]int32{"apps": 17800, "example.com": 1000}
	m.SetLocalPriority(func(g string) int32 { return prio[g] })
	m.SetRemoteGroupVersion(schema.GroupVersion{Group: "wardle.example.com", Version: "v1alpha1"}, remoteVersion(18000, 100, apidiscoveryv2.DiscoveryFreshnessCurrent))
	m.SetRemoteGroupVersion(schema.GroupVersion{Group: "wardle.example.com", Version: "v1beta1"}, remoteVersion(18000, 100, apidiscoveryv2.DiscoveryFreshnessCurrent))
	m.SetRemoteGroupVersion(schema.GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1"}, remoteVersion(100, 100, apidiscoveryv2.DiscoveryFreshnessStale))
	m.SetRemoteGroupVersion(schema.GroupVersion{Group: "a.example.com", Version: "v1"}, remoteVersion(1000, 10, apidiscoveryv2.DiscoveryFreshnessCurrent))
	m.SetRemoteGroupVersion(schema.GroupVersion{Group: "a.example.com", Version: "v2"}, remoteVersion(1000, 5, apidiscoveryv2.DiscoveryFreshnessCurrent))

	var list metav1.APIGroupList
	decode(t, get(m, "GET", "/apis", "Accept", "application/json").Body.Bytes(), &list)
	var names []string
	for _, g := range list.Groups {
		var vs []string
		for _, v := range g.Versions {
			vs = append(vs, v.Version)
		}
		names = append(names, g.Name+"="+g.PreferredVersion.Version+":"+strings.Join(vs, ","))
	}
	want := []string{"wardle.example.com=v1beta1:v1beta1,v1alpha1", "apps=v1:v1", "a.example.com=v1:v1,v2", "example.com=v2:v2,v1", "metrics.k8s.io=v1beta1:v1beta1"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("/apis groups (-want +got):\n%s", diff)
	}

	var group metav1.APIGroup
	rec := get(m, "GET", "/apis/metrics.k8s.io", "Accept", "application/json")
	decode(t, rec.Body.Bytes(), &group)
	if rec.Code != http.StatusOK || group.PreferredVersion.GroupVersion != "metrics.k8s.io/v1beta1" {
		t.Errorf("/apis/metrics.k8s.io: %d %s", rec.Code, rec.Body)
	}

	before := get(m, "GET", "/apis", "Accept", aggregatedJSON)
	var agg apidiscoveryv2.APIGroupDiscoveryList
	decode(t, before.Body.Bytes(), &agg)
	var gotAgg []string
	for _, g := range agg.Items {
		for _, v := range g.Versions {
			gotAgg = append(gotAgg, g.Name+"/"+v.Version+" "+string(v.Freshness))
		}
	}
	wantAgg := []string{
		"wardle.example.com/v1beta1 Current", "wardle.example.com/v1alpha1 Current", "apps/v1 Current",
		"a.example.com/v1 Current", "a.example.com/v2 Current", "example.com/v2 Current", "example.com/v1 Current",
		"metrics.k8s.io/v1beta1 Stale",
	}
	if diff := cmp.Diff(wantAgg, gotAgg); diff != "" {
		t.Errorf("aggregated /apis (-want +got):\n%s", diff)
	}

	// The ETag follows the document: a removed remote version changes it.
	m.RemoveRemoteGroupVersion(schema.GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1"})
	after := get(m, "GET", "/apis", "Accept", aggregatedJSON, "If-None-Match", before.Header().Get("ETag"))
	if after.Code != http.StatusOK || after.Header().Get("ETag") == before.Header().Get("ETag") {
		t.Errorf("after removing a remote version: %d, ETag %s (was %s)", after.Code, after.Header().Get("ETag"), before.Header().Get("ETag"))
	}
	if rec := get(m, "GET", "/apis/metrics.k8s.io", "Accept", "application/json"); rec.Code != http.StatusNotFound {
		t.Errorf("/apis/metrics.k8s.io after removal: %d", rec.Code)
	}
	again := get(m, "GET", "/apis", "Accept", aggregatedJSON, "If-None-Match", after.Header().Get("ETag"))
	if again.Code != http.StatusNotModified {
		t.Errorf("unchanged document: %d, want 304", again.Code)
	}
}

func decode(t *testing.T, b []byte, into any) {
	t.Helper()
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}
