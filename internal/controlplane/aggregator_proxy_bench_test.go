package controlplane

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkAggregatorProxyGET measures what the aggregator's proxy adds
// to a GET: "direct" is a client's keep-alive GET of an aggregated
// server (TLS); "proxied" is the same GET through a remote APIService's
// proxy (user already authenticated, the endpoint resolved from a fixed
// resolver), which forwards it over its own kept-alive TLS connection.
// The difference is the proxy's overhead: one more hop plus the header
// rewrite. Client and servers run in-process, so allocations count all
// sides.
func BenchmarkAggregatorProxyGET(b *testing.B) {
	body := []byte(`{"kind":"FlunderList","apiVersion":"wardle.example.com/v1alpha1","metadata":{},"items":[]}`)
	backend := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	const path = "/apis/example.com/v1/namespaces/default/widgets"
	run := func(b *testing.B, client *http.Client, url string) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := client.Get(url)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	}
	b.Run("direct", func(b *testing.B) {
		srv := httptest.NewTLSServer(backend)
		defer srv.Close()
		client := srv.Client()
		client.Transport.(*http.Transport).ForceAttemptHTTP2 = false
		run(b, client, srv.URL+path)
	})
	b.Run("proxied", func(b *testing.B) {
		front := proxyFront(b, backend)
		run(b, front.Client(), front.URL+path)
	})
}
