package webhook

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkValidatingWebhookRoundTrip is one validating webhook called
// over TLS on loopback for a ConfigMap create: matching, encoding the
// AdmissionReview, the HTTPS round trip and decoding the answer. It
// reports the p50 and p99 latency of the calls.
func BenchmarkValidatingWebhookRoundTrip(b *testing.B) {
	f := newFixture(b)
	f.addValidating("cfg", hookSpec{name: "v.example.com", path: "/allow"})
	ctx := context.Background()
	a := createAttrs(configMap("cm", nil))
	if err := f.val.Validate(ctx, a); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if err := f.val.Validate(ctx, a); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkNoWebhooks is what the two plugins cost when no
// configuration exists.
func BenchmarkNoWebhooks(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	a := createAttrs(configMap("cm", nil))
	b.ReportAllocs()
	for b.Loop() {
		if err := f.mut.Admit(ctx, a); err != nil {
			b.Fatal(err)
		}
		if err := f.val.Validate(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
}
