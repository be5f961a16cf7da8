package serviceaccount

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkAdmitPod is the mutation and validation of one new pod whose
// default account is in the lister.
func BenchmarkAdmitPod(b *testing.B) {
	p, _ := newPlugin(b, []*corev1.ServiceAccount{account("default")}, nil)
	ctx := context.Background()
	for b.Loop() {
		a := create(basicPod())
		if err := p.Admit(ctx, a); err != nil {
			b.Fatal(err)
		}
		if err := p.Validate(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
}
