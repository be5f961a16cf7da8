package daemonset

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// BenchmarkSteadyStateSync: one sync of a DaemonSet over 100 Nodes that
// all have their ready Pod.
func BenchmarkSteadyStateSync(b *testing.B) {
	objs := []runtime.Object{newDS()}
	for i := range 100 {
		objs = append(objs, node(fmt.Sprintf("n%d", i), nil))
	}
	e := newEnv(b, objs...)
	e.sync()
	e.markAllReady()
	e.sync()
	e.sync()
	for b.Loop() {
		if err := e.c.Sync(e.ctx, "ns/ds"); err != nil {
			b.Fatal(err)
		}
	}
}
