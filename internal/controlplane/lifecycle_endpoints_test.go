package controlplane

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

// TestCORSPreflightWithoutCredentials: with --cors-allowed-origins a
// browser's preflight, which carries no credentials, is answered before
// authentication with upstream's headers; another origin gets nothing.
func TestCORSPreflightWithoutCredentials(t *testing.T) {
	s := startServer(t, "memory", withoutControllers, func(c *Config) {
		c.Lifecycle.CorsAllowedOriginList = []string{`//dashboard\.example\.com(:|$)`}
	})
	anonymous, err := rest.HTTPClientFor(rest.AnonymousClientConfig(s.restCfg))
	if err != nil {
		t.Fatal(err)
	}
	preflight := func(origin string) *http.Response {
		req, err := http.NewRequest(http.MethodOptions, s.restCfg.Host+"/api/v1/namespaces", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "GET")
		resp, err := anonymous.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := preflight("https://dashboard.example.com")
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "https://dashboard.example.com" ||
		resp.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Errorf("preflight from an allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
	resp = preflight("https://evil.example.org")
	if resp.StatusCode == http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin: %d %v", resp.StatusCode, resp.Header)
	}
}

// TestReadyzLivezCheckNames compares the checks kapi lists with
// kube-apiserver's: informer-sync and shutdown on /readyz only, post-start
// hooks on both.
func TestReadyzLivezCheckNames(t *testing.T) {
	s := startServer(t, "memory", withoutControllers)
	client, err := rest.HTTPClientFor(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	verbose := func(path string) string {
		resp, err := client.Get(s.restCfg.Host + path + "?verbose")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(body)
	}
	readyz, livez := verbose("/readyz"), verbose("/livez")
	for _, c := range []struct {
		body, check string
		want        bool
	}{
		{readyz, "[+]ping ok", true},
		{readyz, "[+]informer-sync ok", true},
		{readyz, "[+]shutdown ok", true},
		{readyz, "[+]poststarthook/start-shared-informers ok", true},
		{livez, "[+]ping ok", true},
		{livez, "[+]poststarthook/start-shared-informers ok", true},
		{livez, "shutdown", false},
		{livez, "informer-sync", false},
	} {
		if got := strings.Contains(c.body, c.check); got != c.want {
			t.Errorf("%q in\n%s: %v, want %v", c.check, c.body, got, c.want)
		}
	}
}
