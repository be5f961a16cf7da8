package controlplane

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/pki"
)

// TestAggregatorMergedDiscovery pins discovery and OpenAPI through the
// aggregator with a remote APIService whose server has only legacy
// discovery: /apis and /apis/<group> list its group, and the aggregated
// document (what kubectl reads) has its resources, converted from the
// legacy APIResourceList and Current; /openapi/v2 has its group
// version's paths, /openapi/v3 lists its document, served by proxy.
func TestAggregatorMergedDiscovery(t *testing.T) {
	frontCA, withFrontProxy := newFrontProxy(t)
	a := startOpenAPIAggregatedServer(t, frontCA)
	s := startServer(t, "memory", withoutControllers, withFrontProxy)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	registerAggregatedServer(t, ctx, cs, apiregistrationclient.NewForConfigOrDie(s.restCfg), a)

	// The aggregated document, once the server is Available and fetched.
	var wardle *apidiscoveryv2.APIGroupDiscovery
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var list apidiscoveryv2.APIGroupDiscoveryList
		err := cs.Discovery().RESTClient().Get().AbsPath("/apis").
			SetHeader("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList").Do(ctx).Into(&list)
		if err != nil {
			return false, err
		}
		for i := range list.Items {
			g := &list.Items[i]
			if g.Name == "wardle.example.com" && len(g.Versions) == 1 && len(g.Versions[0].Resources) > 0 {
				wardle = g
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("waiting for wardle.example.com in the aggregated discovery: %v", err)
	}
	v := wardle.Versions[0]
	if v.Version != "v1alpha1" || v.Freshness != apidiscoveryv2.DiscoveryFreshnessCurrent || v.Resources[0].Resource != "flunders" || v.Resources[0].Scope != apidiscoveryv2.ScopeNamespace {
		t.Errorf("wardle.example.com discovery %+v", v)
	}

	groups, err := cs.Discovery().ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(groups.Groups, func(g metav1.APIGroup) bool {
		return g.Name == "wardle.example.com" && g.PreferredVersion.Version == "v1alpha1"
	}) {
		t.Errorf("/apis lacks wardle.example.com: %+v", groups.Groups)
	}
	var group metav1.APIGroup
	if err := cs.Discovery().RESTClient().Get().AbsPath("/apis/wardle.example.com").Do(ctx).Into(&group); err != nil || group.PreferredVersion.GroupVersion != "wardle.example.com/v1alpha1" {
		t.Errorf("/apis/wardle.example.com: %+v %v", group, err)
	}
	resources, err := cs.Discovery().ServerResourcesForGroupVersion("wardle.example.com/v1alpha1")
	if err != nil || len(resources.APIResources) != 1 || resources.APIResources[0].Name != "flunders" {
		t.Errorf("/apis/wardle.example.com/v1alpha1: %+v %v", resources, err)
	}

	const flundersPath = "/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders"
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		b, err := cs.Discovery().RESTClient().Get().AbsPath("/openapi/v2").SetHeader("Accept", "application/json").DoRaw(ctx)
		if err != nil {
			return false, err
		}
		var doc spec.Swagger
		if err := json.Unmarshal(b, &doc); err != nil {
			return false, err
		}
		_, ok := doc.Paths.Paths[flundersPath]
		return ok && doc.Paths.Paths["/api/v1/namespaces"].Get != nil, nil
	})
	if err != nil {
		t.Errorf("waiting for %s in /openapi/v2: %v", flundersPath, err)
	}
	const v3URL = "/openapi/v3/apis/wardle.example.com/v1alpha1?hash=WARDLE"
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var index struct {
			Paths map[string]struct {
				ServerRelativeURL string `json:"serverRelativeURL"`
			} `json:"paths"`
		}
		b, err := cs.Discovery().RESTClient().Get().AbsPath("/openapi/v3").DoRaw(ctx)
		if err != nil {
			return false, err
		}
		if err := json.Unmarshal(b, &index); err != nil {
			return false, err
		}
		return index.Paths["apis/wardle.example.com/v1alpha1"].ServerRelativeURL == v3URL && index.Paths["api/v1"].ServerRelativeURL != "", nil
	})
	if err != nil {
		t.Errorf("waiting for the remote document in /openapi/v3: %v", err)
	}
	b, err := cs.Discovery().RESTClient().Get().AbsPath("/openapi/v3/apis/wardle.example.com/v1alpha1").Param("hash", "WARDLE").DoRaw(ctx)
	if err != nil || string(b) != wardleV3 {
		t.Errorf("remote v3 document: %s %v", b, err)
	}
}

const wardleV3 = `{"openapi":"3.0.0","info":{"title":"wardle","version":"v0"},"paths":{}}`

// startOpenAPIAggregatedServer is the test aggregated server of
// startAggregatedServer also serving OpenAPI: a v2 document with its
// flunders path, and a v3 index with one document.
func startOpenAPIAggregatedServer(t *testing.T, frontProxyCA *pki.CA) *aggregatedServer {
	return newAggregatedServer(t, frontProxyCA, "", func(a *aggregatedServer) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/openapi/v2":
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"swagger":"2.0","info":{"title":"wardle","version":"v0"},"paths":{` +
					`"/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders":{"get":{"operationId":"listWardleFlunders","responses":{"200":{"description":"OK"}}}}}}`))
			case "/openapi/v3":
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"paths":{"apis/wardle.example.com/v1alpha1":{"serverRelativeURL":"/openapi/v3/apis/wardle.example.com/v1alpha1?hash=WARDLE"}}}`))
			case "/openapi/v3/apis/wardle.example.com/v1alpha1":
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(wardleV3))
			default:
				a.serve(w, r)
			}
		})
	})
}
