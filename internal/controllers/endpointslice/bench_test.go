package endpointslice

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// BenchmarkReconcile1000Pods: the first sync of a Service with 1,000
// Pods (ten slices created through a fake client), and a resync that
// finds nothing to change.
func BenchmarkReconcile1000Pods(b *testing.B) {
	svc := service()
	pods := make([]*corev1.Pod, 1000)
	objs := []runtime.Object{svc, node}
	for i := range pods {
		pods[i] = pod(fmt.Sprintf("p%04d", i), fmt.Sprintf("10.1.%d.%d", i/250, i%250+1), true)
		objs = append(objs, pods[i])
	}
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e := newEnv(b, 0, objs...)
			if err := e.c.reconciler.reconcile(context.Background(), svc, pods, nil, created.Time); err != nil {
				b.Fatal(err)
			}
		}
	})
	e := newEnv(b, 0, objs...)
	if err := e.c.reconciler.reconcile(context.Background(), svc, pods, nil, created.Time); err != nil {
		b.Fatal(err)
	}
	existing := e.slices(b)
	b.Run("unchanged", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mine := make([]*discoveryv1.EndpointSlice, len(existing))
			for i := range existing {
				mine[i] = &existing[i]
			}
			if err := e.c.reconciler.reconcile(context.Background(), svc, pods, mine, created.Time); err != nil {
				b.Fatal(err)
			}
		}
	})
}
