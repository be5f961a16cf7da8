package metrics

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

func TestResourceLabels(t *testing.T) {
	tests := []struct {
		name, method, url, contentType string
		want                           Labels
	}{
		{name: "get", method: "GET", url: "/api/v1/namespaces/ns/configmaps/a",
			want: Labels{Verb: "GET", Version: "v1", Resource: "configmaps", Scope: "resource"}},
		{name: "list in a namespace", method: "GET", url: "/api/v1/namespaces/ns/configmaps",
			want: Labels{Verb: "LIST", Version: "v1", Resource: "configmaps", Scope: "namespace"}},
		{name: "list across the cluster", method: "GET", url: "/apis/apps/v1/deployments",
			want: Labels{Verb: "LIST", Group: "apps", Version: "v1", Resource: "deployments", Scope: "cluster"}},
		{name: "head of a list", method: "HEAD", url: "/api/v1/namespaces",
			want: Labels{Verb: "LIST", Version: "v1", Resource: "namespaces", Scope: "cluster"}},
		{name: "watch parameter", method: "GET", url: "/api/v1/namespaces/ns/pods?watch=true",
			want: Labels{Verb: "WATCH", Version: "v1", Resource: "pods", Scope: "namespace"}},
		{name: "watch=1", method: "GET", url: "/api/v1/pods?watch=1",
			want: Labels{Verb: "WATCH", Version: "v1", Resource: "pods", Scope: "cluster"}},
		{name: "watch=false is a list", method: "GET", url: "/api/v1/pods?watch=false",
			want: Labels{Verb: "LIST", Version: "v1", Resource: "pods", Scope: "cluster"}},
		{name: "legacy watch path", method: "GET", url: "/api/v1/watch/namespaces/ns/pods",
			want: Labels{Verb: "WATCH", Version: "v1", Resource: "pods", Scope: "namespace"}},
		{name: "create has resource scope", method: "POST", url: "/api/v1/namespaces/ns/configmaps",
			want: Labels{Verb: "POST", Version: "v1", Resource: "configmaps", Scope: "resource"}},
		{name: "update", method: "PUT", url: "/api/v1/namespaces/ns/configmaps/a",
			want: Labels{Verb: "PUT", Version: "v1", Resource: "configmaps", Scope: "resource"}},
		{name: "status subresource", method: "PUT", url: "/api/v1/namespaces/ns/pods/a/status",
			want: Labels{Verb: "PUT", Version: "v1", Resource: "pods", Subresource: "status", Scope: "resource"}},
		{name: "merge patch", method: "PATCH", url: "/api/v1/namespaces/ns/configmaps/a", contentType: "application/merge-patch+json",
			want: Labels{Verb: "PATCH", Version: "v1", Resource: "configmaps", Scope: "resource"}},
		{name: "apply", method: "PATCH", url: "/api/v1/namespaces/ns/configmaps/a", contentType: "application/apply-patch+yaml",
			want: Labels{Verb: "APPLY", Version: "v1", Resource: "configmaps", Scope: "resource"}},
		{name: "delete collection", method: "DELETE", url: "/api/v1/namespaces/ns/configmaps",
			want: Labels{Verb: "DELETE", Version: "v1", Resource: "configmaps", Scope: "namespace"}},
		{name: "exec is CONNECT", method: "POST", url: "/api/v1/namespaces/ns/pods/a/exec",
			want: Labels{Verb: "CONNECT", Version: "v1", Resource: "pods", Subresource: "exec", Scope: "resource"}},
		{name: "log is CONNECT", method: "GET", url: "/api/v1/namespaces/ns/pods/a/log",
			want: Labels{Verb: "CONNECT", Version: "v1", Resource: "pods", Subresource: "log", Scope: "resource"}},
		{name: "unknown method", method: "PURGE", url: "/api/v1/namespaces/ns/configmaps/a",
			want: Labels{Verb: "other", Version: "v1", Resource: "configmaps", Scope: "resource"}},
		{name: "lower-case method", method: "put", url: "/api/v1/namespaces/ns/configmaps/a",
			want: Labels{Verb: "PUT", Version: "v1", Resource: "configmaps", Scope: "resource"}},
		{name: "dry run", method: "POST", url: "/api/v1/namespaces/ns/configmaps?dryRun=All",
			want: Labels{Verb: "POST", DryRun: "All", Version: "v1", Resource: "configmaps", Scope: "resource"}},
		{name: "dry run twice", method: "POST", url: "/api/v1/namespaces/ns/configmaps?dryRun=All&dryRun=All",
			want: Labels{Verb: "POST", DryRun: "All", Version: "v1", Resource: "configmaps", Scope: "resource"}},
		{name: "invalid dry run", method: "POST", url: "/api/v1/namespaces/ns/configmaps?dryRun=yes",
			want: Labels{Verb: "POST", DryRun: "invalid", Version: "v1", Resource: "configmaps", Scope: "resource"}},
		{name: "custom resource", method: "GET", url: "/apis/example.com/v1/namespaces/ns/widgets",
			want: Labels{Verb: "LIST", Group: "example.com", Version: "v1", Resource: "widgets", Scope: "namespace"}},
	}
	infos := request.NewRequestInfoFactory()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tt.url, nil)
			r.Method = tt.method
			if tt.contentType != "" {
				r.Header.Set("Content-Type", tt.contentType)
			}
			info, err := infos.NewRequestInfo(r)
			if err != nil {
				t.Fatal(err)
			}
			if got := ResourceLabels(r, info); got != tt.want {
				t.Errorf("labels = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDiscoveryLabels(t *testing.T) {
	for path, want := range map[string]string{"/api": "/api", "/apis": "/apis", "/apis/": "/apis"} {
		got := DiscoveryLabels(httptest.NewRequest(http.MethodGet, path, nil))
		if w := (Labels{Verb: "GET", Subresource: want}); got != w {
			t.Errorf("%s: labels = %+v, want %+v", path, got, w)
		}
	}
}

func TestCompressUsername(t *testing.T) {
	for name, want := range map[string]string{
		"admin":      "admin",
		"kubelet":    "kubelet",
		"jane@x.org": "email_id",
		"system:serviceaccount:kube-system:default": "system:serviceaccount:kube-system:default",
		"system:serviceaccount:ns:builder":          "other",
	} {
		if got := compressUsername(name); got != want {
			t.Errorf("compressUsername(%q) = %q, want %q", name, got, want)
		}
	}
}
