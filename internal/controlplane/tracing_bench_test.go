package controlplane

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/internal/server/tracing"
)

// BenchmarkGetConfigMapTracing is BenchmarkGetConfigMap (the whole path
// of a client's GET on the memory backend) without
// --tracing-config-file and with it at its default rate of 0, when no
// caller asks for a trace: a non-recording server span per request and
// one context lookup in each traced layer. Nothing is exported, so the
// endpoint is never dialled.
func BenchmarkGetConfigMapTracing(b *testing.B) {
	for _, bc := range []struct {
		name    string
		tracing *tracing.Config
	}{
		{"off", nil},
		{"sampled-0", &tracing.Config{Endpoint: "127.0.0.1:1", SamplingRatePerMillion: 0}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := startServer(b, "memory", withoutControllers, func(c *Config) { c.Tracing = bc.tracing })
			cms := kubernetes.New(s.restClient("application/vnd.kubernetes.protobuf")).CoreV1().ConfigMaps("bench")
			if _, err := cms.Create(context.Background(), newBenchConfigMap(0), metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			before := processCPU()
			for b.Loop() {
				if _, err := cms.Get(context.Background(), "cm-0", metav1.GetOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			// Client and server share the process: this is both.
			b.ReportMetric(float64(processCPU()-before)/float64(b.N), "cpu-ns/op")
		})
	}
}
