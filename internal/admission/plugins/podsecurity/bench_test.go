package podsecurity

import (
	"context"
	"testing"

	"github.com/kapi-dev/kapi/internal/admission"
)

// BenchmarkValidateRestrictedPod is one pod create in a namespace
// enforcing restricted:latest (the pod passes).
func BenchmarkValidateRestrictedPod(b *testing.B) {
	p := New(Options{GetNamespace: namespaces(ns("ns", map[string]string{EnforceLevelLabel: "restricted"}))})
	pod := restrictedPod()
	a := &admission.Attributes{Name: "p", Namespace: "ns", Resource: podsGVR, Operation: admission.Create, Object: pod}
	ctx := context.Background()
	for b.Loop() {
		if err := p.Validate(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
}
