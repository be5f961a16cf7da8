package statefulset

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// BenchmarkSteadyStateSync: one sync of a 100-replica set whose Pods all
// run and are ready (the common case: nothing to do but recount).
func BenchmarkSteadyStateSync(b *testing.B) {
	e := newEnv(b, newSet("web", 100, func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement }))
	e.sync("ns", "web")
	for _, n := range e.podNames("ns") {
		e.markReady("ns", n)
	}
	e.sync("ns", "web")
	e.sync("ns", "web")
	for b.Loop() {
		if err := e.c.Sync(e.ctx, "ns/web"); err != nil {
			b.Fatal(err)
		}
	}
}
