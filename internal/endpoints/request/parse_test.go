package request

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestNewRequestInfoResources(t *testing.T) {
	type want struct {
		verb, prefix, group, version, namespace, resource, subresource, name string
		parts                                                                []string
	}
	tests := []struct {
		method, url string
		want        want
	}{
		// core group, namespaced
		{"GET", "/api/v1/namespaces/ns/pods", want{"list", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/namespaces/ns/pods/foo", want{"get", "api", "", "v1", "ns", "pods", "", "foo", []string{"pods", "foo"}}},
		{"HEAD", "/api/v1/namespaces/ns/pods/foo", want{"get", "api", "", "v1", "ns", "pods", "", "foo", []string{"pods", "foo"}}},
		{"GET", "/api/v1/namespaces/ns/pods/foo/log", want{"get", "api", "", "v1", "ns", "pods", "log", "foo", []string{"pods", "foo", "log"}}},
		{"GET", "/api/v1/namespaces/ns/pods/foo/proxy/a/b", want{"get", "api", "", "v1", "ns", "pods", "proxy", "foo", []string{"pods", "foo", "proxy", "a", "b"}}},
		{"POST", "/api/v1/namespaces/ns/pods", want{"create", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"POST", "/api/v1/namespaces/ns/pods/foo/eviction", want{"create", "api", "", "v1", "ns", "pods", "eviction", "foo", []string{"pods", "foo", "eviction"}}},
		{"PUT", "/api/v1/namespaces/ns/pods/foo", want{"update", "api", "", "v1", "ns", "pods", "", "foo", []string{"pods", "foo"}}},
		{"PUT", "/api/v1/namespaces/ns/pods/foo/status", want{"update", "api", "", "v1", "ns", "pods", "status", "foo", []string{"pods", "foo", "status"}}},
		{"PATCH", "/api/v1/namespaces/ns/pods/foo", want{"patch", "api", "", "v1", "ns", "pods", "", "foo", []string{"pods", "foo"}}},
		{"DELETE", "/api/v1/namespaces/ns/pods/foo", want{"delete", "api", "", "v1", "ns", "pods", "", "foo", []string{"pods", "foo"}}},
		{"DELETE", "/api/v1/namespaces/ns/pods", want{"deletecollection", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"OPTIONS", "/api/v1/namespaces/ns/pods", want{"", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		// all namespaces and cluster scope
		{"GET", "/api/v1/pods", want{"list", "api", "", "v1", "", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/nodes/n1", want{"get", "api", "", "v1", "", "nodes", "", "n1", []string{"nodes", "n1"}}},
		{"PUT", "/api/v1/nodes/n1/status", want{"update", "api", "", "v1", "", "nodes", "status", "n1", []string{"nodes", "n1", "status"}}},
		// the namespace object itself
		{"GET", "/api/v1/namespaces", want{"list", "api", "", "v1", "", "namespaces", "", "", []string{"namespaces"}}},
		{"GET", "/api/v1/namespaces/ns", want{"get", "api", "", "v1", "ns", "namespaces", "", "ns", []string{"namespaces", "ns"}}},
		{"DELETE", "/api/v1/namespaces/ns", want{"delete", "api", "", "v1", "ns", "namespaces", "", "ns", []string{"namespaces", "ns"}}},
		{"PUT", "/api/v1/namespaces/ns/status", want{"update", "api", "", "v1", "ns", "namespaces", "status", "ns", []string{"namespaces", "ns", "status"}}},
		{"PUT", "/api/v1/namespaces/ns/finalize", want{"update", "api", "", "v1", "ns", "namespaces", "finalize", "ns", []string{"namespaces", "ns", "finalize"}}},
		// named groups
		{"GET", "/apis/apps/v1/namespaces/ns/deployments", want{"list", "apis", "apps", "v1", "ns", "deployments", "", "", []string{"deployments"}}},
		{"GET", "/apis/apps/v1/namespaces/ns/deployments/d/scale", want{"get", "apis", "apps", "v1", "ns", "deployments", "scale", "d", []string{"deployments", "d", "scale"}}},
		{"GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", want{"get", "apis", "rbac.authorization.k8s.io", "v1", "", "clusterroles", "", "admin", []string{"clusterroles", "admin"}}},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", want{"create", "apis", "authorization.k8s.io", "v1", "", "selfsubjectaccessreviews", "", "", []string{"selfsubjectaccessreviews"}}},
		{"DELETE", "/apis/example.com/v1/widgets", want{"deletecollection", "apis", "example.com", "v1", "", "widgets", "", "", []string{"widgets"}}},
		// watch by query and by the legacy path prefix
		{"GET", "/api/v1/namespaces/ns/pods?watch=true", want{"watch", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/namespaces/ns/pods?watch=1", want{"watch", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/namespaces/ns/pods?watch=", want{"watch", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/namespaces/ns/pods?watch=false", want{"list", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/namespaces/ns/pods?watch=0", want{"list", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/pods?watch=true", want{"watch", "api", "", "v1", "", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/watch/namespaces/ns/pods", want{"watch", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/watch/namespaces/ns/pods/foo", want{"watch", "api", "", "v1", "ns", "pods", "", "foo", []string{"pods", "foo"}}},
		{"GET", "/api/v1/watch/pods", want{"watch", "api", "", "v1", "", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/watch/namespaces", want{"watch", "api", "", "v1", "", "namespaces", "", "", []string{"namespaces"}}},
		{"GET", "/api/v1/watch/namespaces/ns", want{"watch", "api", "", "v1", "ns", "namespaces", "", "ns", []string{"namespaces", "ns"}}},
		{"GET", "/apis/apps/v1/watch/namespaces/ns/deployments", want{"watch", "apis", "apps", "v1", "ns", "deployments", "", "", []string{"deployments"}}},
		// a bad selector does not hide a watch
		{"GET", "/api/v1/namespaces/ns/pods?watch=true&labelSelector=a+in+(", want{"watch", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		// legacy proxy verb keeps the rest as the proxied path
		{"GET", "/api/v1/proxy/namespaces/ns/pods/foo/a/b", want{"proxy", "api", "", "v1", "ns", "pods", "", "foo", []string{"pods", "foo", "a", "b"}}},
		// the metadata.name field selector names a single object
		{"GET", "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dfoo", want{"list", "api", "", "v1", "ns", "pods", "", "foo", []string{"pods"}}},
		{"GET", "/api/v1/namespaces/ns/pods?watch=true&fieldSelector=metadata.name%3D%3Dfoo", want{"watch", "api", "", "v1", "ns", "pods", "", "foo", []string{"pods"}}},
		{"GET", "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%21%3Dfoo", want{"list", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3D..", want{"list", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"GET", "/api/v1/namespaces/ns/pods?fieldSelector=spec.nodeName%3Dn1", want{"list", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		{"DELETE", "/api/v1/namespaces/ns/pods?fieldSelector=metadata.name%3Dfoo", want{"deletecollection", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
		// a trailing slash does not change the meaning
		{"GET", "/api/v1/namespaces/ns/pods/", want{"list", "api", "", "v1", "ns", "pods", "", "", []string{"pods"}}},
	}
	f := NewRequestInfoFactory()
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.url, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.url, nil)
			info, err := f.NewRequestInfo(req)
			if err != nil {
				t.Fatalf("NewRequestInfo: %v", err)
			}
			if !info.IsResourceRequest {
				t.Fatalf("IsResourceRequest = false, want true")
			}
			w := tt.want
			want := &RequestInfo{
				IsResourceRequest: true, Path: req.URL.Path, Verb: w.verb, APIPrefix: w.prefix,
				APIGroup: w.group, APIVersion: w.version, Namespace: w.namespace, Resource: w.resource,
				Subresource: w.subresource, Name: w.name, Parts: w.parts,
			}
			if diff := cmp.Diff(want, info, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("RequestInfo mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewRequestInfoNonResource(t *testing.T) {
	tests := []struct {
		method, url, verb string
		// prefix is set when the path got as far as a known API prefix.
		prefix string
	}{
		{"GET", "/", "get", ""},
		{"GET", "/healthz", "get", ""},
		{"GET", "/healthz/ping", "get", ""},
		{"GET", "/version", "get", ""},
		{"GET", "/api", "get", ""},
		{"GET", "/api/", "get", ""},
		{"GET", "/api/v1", "get", ""},
		{"GET", "/apis", "get", ""},
		{"GET", "/apis/apps", "get", ""},
		{"GET", "/apis/apps/v1", "get", "apis"},
		{"GET", "/apis/apps/v1/", "get", "apis"},
		{"GET", "/openapi/v3/apis/apps/v1", "get", ""},
		{"POST", "/logs/foo", "post", ""},
		{"HEAD", "/readyz", "head", ""},
		{"DELETE", "/foo/bar/baz", "delete", ""},
	}
	f := NewRequestInfoFactory()
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.url, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.url, nil)
			info, err := f.NewRequestInfo(req)
			if err != nil {
				t.Fatalf("NewRequestInfo: %v", err)
			}
			want := &RequestInfo{Path: req.URL.Path, Verb: tt.verb, APIPrefix: tt.prefix}
			if diff := cmp.Diff(want, info, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("RequestInfo mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewRequestInfoErrors(t *testing.T) {
	tests := []string{
		"/api/v1/watch",
		"/api/v1/proxy",
		"/apis/apps/v1/watch",
	}
	f := NewRequestInfoFactory()
	for _, url := range tests {
		t.Run(url, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, url, nil)
			if _, err := f.NewRequestInfo(req); err == nil {
				t.Errorf("NewRequestInfo(%q) error = nil, want an error", url)
			}
		})
	}
}

func TestDefaultLongRunningRequestCheck(t *testing.T) {
	tests := []struct {
		method, url string
		want        bool
	}{
		{"GET", "/api/v1/pods?watch=true", true},
		{"GET", "/api/v1/watch/namespaces/ns/pods", true},
		{"GET", "/api/v1/namespaces/ns/pods/foo/log", true},
		{"POST", "/api/v1/namespaces/ns/pods/foo/exec", true},
		{"POST", "/api/v1/namespaces/ns/pods/foo/attach", true},
		{"POST", "/api/v1/namespaces/ns/pods/foo/portforward", true},
		{"GET", "/api/v1/namespaces/ns/services/foo/proxy/x", true},
		{"GET", "/api/v1/proxy/namespaces/ns/pods/foo", true},
		{"GET", "/debug/pprof/profile", true},
		{"GET", "/api/v1/pods", false},
		{"PUT", "/api/v1/namespaces/ns/pods/foo/status", false},
		{"GET", "/healthz", false},
		{"GET", "/log", false},
	}
	f := NewRequestInfoFactory()
	check := DefaultLongRunningRequestCheck()
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.url, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.url, nil)
			info, err := f.NewRequestInfo(req)
			if err != nil {
				t.Fatalf("NewRequestInfo: %v", err)
			}
			if got := check(req, info); got != tt.want {
				t.Errorf("long-running = %v, want %v", got, tt.want)
			}
		})
	}
}

func FuzzNewRequestInfo(f *testing.F) {
	for _, seed := range []string{"/api/v1/namespaces/a/pods/b/status", "/apis/g/v/watch/x", "/api/v1/pods?fieldSelector=metadata.name%3Dx&watch=1", "/api/00//0"} {
		f.Add(seed)
	}
	factory := NewRequestInfoFactory()
	f.Fuzz(func(t *testing.T, target string) {
		req, err := http.NewRequest(http.MethodGet, "https://h"+target, nil)
		if err != nil {
			return
		}
		info, err := factory.NewRequestInfo(req)
		if err != nil {
			return
		}
		// An empty path segment ("/api/v1//x") leaves the resource
		// empty, as upstream parses it; anything else names one.
		if info.IsResourceRequest && info.Resource == "" && !strings.Contains(req.URL.Path, "//") {
			t.Errorf("resource request %q without a resource", target)
		}
	})
}
