package endpoints

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkDesiredSubsets1000Pods: building and packing the subsets of a
// Service with 1,000 Pods (half ready), the pure part of a sync.
func BenchmarkDesiredSubsets1000Pods(b *testing.B) {
	svc := service()
	pods := make([]*corev1.Pod, 1000)
	for i := range pods {
		pods[i] = pod(fmt.Sprintf("p%04d", i), fmt.Sprintf("10.1.%d.%d", i/250, i%250+1), i%2 == 0)
	}
	b.ReportAllocs()
	for b.Loop() {
		if s := desiredSubsets(svc, pods); len(s) != 1 {
			b.Fatalf("%d subsets", len(s))
		}
	}
}
