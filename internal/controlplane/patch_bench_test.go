package controlplane

import (
	"fmt"
	"net/url"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// BenchmarkPatchDeployment measures one patch of each type of the
// testdata Deployment through the whole control plane, each patch
// changing the image so that every request writes.
func BenchmarkPatchDeployment(b *testing.B) {
	c := newPatchClient(b, startServer(b, "memory", withoutControllers))
	benchmarks := []struct {
		patchType types.PatchType
		body      func(name string, i int) string
		query     url.Values
	}{
		{jsonPatch, func(_ string, i int) string {
			return fmt.Sprintf(`[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:%d"}]`, i)
		}, nil},
		{mergePatch, func(_ string, i int) string {
			return fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:%d"}]}}}}`, i)
		}, nil},
		{strategicPatch, func(_ string, i int) string {
			return fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:%d"}]}}}}`, i)
		}, nil},
		{applyPatch, func(name string, i int) string {
			return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  template:\n    spec:\n      containers:\n      - name: nginx\n        image: nginx:%d\n", name, i)
		}, url.Values{"fieldManager": {"bench"}, "force": {"true"}}},
	}
	for _, bm := range benchmarks {
		b.Run(string(bm.patchType), func(b *testing.B) {
			name := patchObjectName("bench " + string(bm.patchType))
			c.create(b, "deployment", name)
			path := patchObjectPath(b, "Deployment", name, "")
			i := 0
			for b.Loop() {
				i++
				if resp := c.patch(path, bm.patchType, bm.body(name, i), bm.query); resp.err != nil {
					b.Fatalf("code %d: %v", resp.code, resp.err)
				}
			}
		})
	}
}
