package e2e

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/pki"
	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// wardleServer is an aggregated API server written with plain net/http:
// TLS for api.wardle.svc, a client certificate of the front-proxy CA
// required, serving wardle.example.com/v1alpha1 with its discovery (the
// aggregated document and the legacy one) and one namespaced resource,
// flunders, holding one object.
func wardleServer(t *testing.T, frontProxyCA *pki.CA) (port string, caBundle []byte) {
	t.Helper()
	ca, err := pki.EnsureCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	certPEM, keyPEM, err := ca.EnsureServingCert(t.TempDir(), []string{"api.wardle.svc"})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	flunders := []metav1.APIResource{{Name: "flunders", SingularName: "flunder", Namespaced: true, Kind: "Flunder", Verbs: []string{"get", "list"}, ShortNames: []string{"fl"}}}
	mux := http.NewServeMux()
	mux.HandleFunc("/apis", func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept"), "as=APIGroupDiscoveryList") {
			writeJSON(w, metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{{
				Name:             "wardle.example.com",
				Versions:         []metav1.GroupVersionForDiscovery{{GroupVersion: "wardle.example.com/v1alpha1", Version: "v1alpha1"}},
				PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "wardle.example.com/v1alpha1", Version: "v1alpha1"},
			}}})
			return
		}
		w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
		_ = json.NewEncoder(w).Encode(apidiscoveryv2.APIGroupDiscoveryList{
			TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"},
			Items: []apidiscoveryv2.APIGroupDiscovery{{
				ObjectMeta: metav1.ObjectMeta{Name: "wardle.example.com"},
				Versions: []apidiscoveryv2.APIVersionDiscovery{{Version: "v1alpha1", Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent, Resources: []apidiscoveryv2.APIResourceDiscovery{{
					Resource: "flunders", SingularResource: "flunder", Scope: apidiscoveryv2.ScopeNamespace, Verbs: []string{"get", "list"}, ShortNames: []string{"fl"},
					ResponseKind: &metav1.GroupVersionKind{Group: "wardle.example.com", Version: "v1alpha1", Kind: "Flunder"},
				}}}},
			}},
		})
	})
	mux.HandleFunc("/apis/wardle.example.com/v1alpha1", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "wardle.example.com/v1alpha1", APIResources: flunders})
	})
	mux.HandleFunc("/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Remote-User") == "" {
			http.Error(w, "no front-proxy identity", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, `{"kind":"FlunderList","apiVersion":"wardle.example.com/v1alpha1","metadata":{},"items":[`+
			`{"kind":"Flunder","apiVersion":"wardle.example.com/v1alpha1","metadata":{"name":"my-flunder","namespace":"default","creationTimestamp":"2026-01-01T00:00:00Z"}}]}`)
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: frontProxyCA.CertPool()}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, port, _ = net.SplitHostPort(srv.Listener.Addr().String())
	return port, ca.CertPEM
}

// TestAggregatorKubectl: an aggregated API server as kubectl users see
// it. Registered by an APIService, its group shows in `kubectl get --raw
// /apis`, its resource in `kubectl api-resources` (aggregated discovery
// merged from the server's), `kubectl get` lists its objects through the
// proxy (which presents the front-proxy certificate the server
// requires), and a user without RBAC rights is stopped by kapi with 403.
func TestAggregatorKubectl(t *testing.T) {
	frontDir := t.TempDir()
	frontCA, err := pki.EnsureCA(frontDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := frontCA.EnsureClientCert(frontDir, "front-proxy-client", "front-proxy-client", nil); err != nil {
		t.Fatal(err)
	}
	port, caBundle := wardleServer(t, frontCA)
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"), framework.WithArgs(
		"--requestheader-client-ca-file", filepath.Join(frontDir, pki.CACertFile),
		"--requestheader-allowed-names", "front-proxy-client",
		"--proxy-client-cert-file", filepath.Join(frontDir, "front-proxy-client.crt"),
		"--proxy-client-key-file", filepath.Join(frontDir, "front-proxy-client.key"),
	))
	r := kubectlRunner{t, k}
	r.stdin(fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata: {name: wardle}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: wardle}
spec: {type: ExternalName, externalName: localhost}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1alpha1.wardle.example.com}
spec:
  group: wardle.example.com
  version: v1alpha1
  groupPriorityMinimum: 1000
  versionPriority: 15
  service: {namespace: wardle, name: api, port: %s}
  caBundle: %s
`, port, base64.StdEncoding.EncodeToString(caBundle)), "apply", "-f", "-")

	eventually(t, "APIService Available", func(context.Context) (bool, error) {
		out, err := k.Kubectl(t, "get", "apiservice", "v1alpha1.wardle.example.com", "-o", "jsonpath={.status.conditions[?(@.type=='Available')].status}")
		return strings.TrimSpace(out) == "True", err
	})
	eventually(t, "flunders in kubectl api-resources", func(context.Context) (bool, error) {
		out, err := k.Kubectl(t, "api-resources", "--api-group", "wardle.example.com")
		return len(lineFields(out, "flunders")) > 0, err
	})
	if f := lineFields(r.run("api-resources", "--api-group", "wardle.example.com"), "flunders"); strings.Join(f, " ") != "flunders fl wardle.example.com/v1alpha1 true Flunder" {
		t.Errorf("api-resources line %q", f)
	}
	if out := r.run("get", "--raw", "/apis"); !strings.Contains(out, `"name":"wardle.example.com"`) {
		t.Errorf("/apis lacks wardle.example.com:\n%s", out)
	}
	if out := r.run("get", "flunders", "-n", "default"); !strings.Contains(out, "my-flunder") {
		t.Errorf("kubectl get flunders:\n%s", out)
	}
	if out := r.fails("", "get", "flunders", "-n", "default", "--as", "alice"); !strings.Contains(out, `User "alice" cannot list resource "flunders" in API group "wardle.example.com"`) {
		t.Errorf("alice's kubectl get flunders:\n%s", out)
	}
}
