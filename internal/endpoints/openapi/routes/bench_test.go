package routes

import "testing"

// BenchmarkBuild builds the paths of a core-like group version (13
// resources and subresources, 40 paths).
func BenchmarkBuild(b *testing.B) {
	rs := coreResources()
	b.ReportAllocs()
	for b.Loop() {
		Build(coreV1, rs)
	}
}
