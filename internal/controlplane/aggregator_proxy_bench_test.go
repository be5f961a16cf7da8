package controlplane

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// BenchmarkAggregatorProxyGET measures what the aggregator's proxy adds
// to a GET: "direct" is a client's keep-alive GET of an aggregated
// server (TLS); "proxied" is the same GET through a remote APIService's
// proxy (user already authenticated, the endpoint resolved from a fixed
// resolver), which forwards it over its own kept-alive TLS connection.
// The difference is the proxy's overhead: one more hop plus the header
// rewrite. Client and servers run in-process, so allocations and
// cpu-µs/op (the process's CPU time per GET) count all sides; p50-µs and
// p99-µs are the GETs' latencies.
func BenchmarkAggregatorProxyGET(b *testing.B) {
	body := []byte(`{"kind":"FlunderList","apiVersion":"wardle.example.com/v1alpha1","metadata":{},"items":[]}`)
	backend := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	const path = "/apis/example.com/v1/namespaces/default/widgets"
	run := func(b *testing.B, client *http.Client, url string) {
		b.ReportAllocs()
		var lat latencies
		cpu0 := processCPU()
		for b.Loop() {
			start := time.Now()
			resp, err := client.Get(url)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("status %d", resp.StatusCode)
			}
			lat = append(lat, time.Since(start))
		}
		b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		lat.report(b)
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

// BenchmarkAggregatorProxyWatch measures how late a watch event arrives
// through the proxy: the aggregated server writes and flushes one event
// per iteration on an open watch, and the client reads it; p50-µs and
// p99-µs are the times from the server's write to the client's read,
// directly and through the proxy.
func BenchmarkAggregatorProxyWatch(b *testing.B) {
	const path = "/apis/example.com/v1/namespaces/default/widgets?watch=true"
	event := []byte(`{"type":"ADDED","object":{"kind":"Flunder","apiVersion":"wardle.example.com/v1alpha1","metadata":{"name":"a"}}}` + "\n")
	run := func(b *testing.B, serve func(http.Handler) (client *http.Client, url string)) {
		sent := make(chan time.Time)
		backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			for {
				select {
				case <-r.Context().Done():
					return
				case sent <- time.Now():
					_, _ = w.Write(event)
					w.(http.Flusher).Flush()
				}
			}
		})
		client, url := serve(backend)
		resp, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		lines := bufio.NewReader(resp.Body)
		var lat latencies
		for b.Loop() {
			at := <-sent
			if _, err := lines.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(at))
		}
		lat.report(b)
	}
	b.Run("direct", func(b *testing.B) {
		run(b, func(h http.Handler) (*http.Client, string) {
			srv := httptest.NewTLSServer(h)
			b.Cleanup(srv.Close)
			return srv.Client(), srv.URL + path
		})
	})
	b.Run("proxied", func(b *testing.B) {
		run(b, func(h http.Handler) (*http.Client, string) {
			front := proxyFront(b, h)
			return front.Client(), front.URL + path
		})
	})
}

// latencies are one benchmark's per-operation times.
type latencies []time.Duration

// report adds their median and 99th percentile to the benchmark's result.
func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	at := func(q float64) float64 { return float64(l[int(q*float64(len(l)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(at(0.50), "p50-µs")
	b.ReportMetric(at(0.99), "p99-µs")
}
