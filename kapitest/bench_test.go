package kapitest

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// BenchmarkStart measures Start on memory to a client that has listed
// namespaces: what a test waits for before its first request.
func BenchmarkStart(b *testing.B) {
	var stops []*Server
	for b.Loop() {
		s := StartServer(b)
		cs := kubernetes.NewForConfigOrDie(s.Config())
		if _, err := cs.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Stop()
		stops = append(stops, s)
		b.StartTimer()
	}
}

// BenchmarkStop measures Stop of a memory server that served a request.
func BenchmarkStop(b *testing.B) {
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		s := StartServer(b)
		cs := kubernetes.NewForConfigOrDie(s.Config())
		if _, err := cs.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		s.Stop()
		total += time.Since(t0)
	}
	_ = total
}
