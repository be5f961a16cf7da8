package controlplane

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/kapi-dev/kapi/internal/pki"
)

// TestAggregatorMergedDiscovery pins discovery through the aggregator
// with a remote APIService whose server has only legacy discovery:
// /apis and /apis/<group> list its group, and the aggregated document
// (what kubectl reads) has its resources, converted from the legacy
// APIResourceList and Current.
func TestAggregatorMergedDiscovery(t *testing.T) {
	frontDir := t.TempDir()
	frontCA, err := pki.EnsureCA(frontDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := frontCA.EnsureClientCert(frontDir, "front-proxy-client", "front-proxy-client", nil); err != nil {
		t.Fatal(err)
	}
	a := startAggregatedServer(t, frontCA)
	s := startServer(t, "memory", withoutControllers, func(c *Config) {
		c.Security.ProxyClientCertFile = filepath.Join(frontDir, "front-proxy-client.crt")
		c.Security.ProxyClientKeyFile = filepath.Join(frontDir, "front-proxy-client.key")
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	registerAggregatedServer(t, ctx, cs, apiregistrationclient.NewForConfigOrDie(s.restCfg), a)

	// The aggregated document, once the server is Available and fetched.
	var wardle *apidiscoveryv2.APIGroupDiscovery
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
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
}
