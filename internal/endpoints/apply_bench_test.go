package endpoints_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkApplyDeployment50Containers measures the server's side of a
// server-side apply of a 50-container Deployment through the handler
// (decoding, field manager, admission, memory storage, encoding); every
// apply changes one image, so every one writes. The strategic merge patch
// of the same change is there to compare: it also records managed fields.
func BenchmarkApplyDeployment50Containers(b *testing.B) {
	const containers = 50
	configs := [2]string{}
	patches := [2]string{}
	for i := range configs {
		cs := make([]string, containers)
		for c := range cs {
			cs[c] = fmt.Sprintf("c%d=nginx:%d", c, 1)
		}
		cs[0] = fmt.Sprintf("c0=nginx:%d", i+2)
		configs[i] = deploymentYAML(3, cs...)
		patches[i] = fmt.Sprintf(`{"spec":{"template":{"spec":{"containers":[{"name":"c0","image":"nginx:%d"}]}}}}`, i+2)
	}
	env := newApplyEnv(b)
	// The first apply creates and builds the type converter's schema.
	if rec := env.do(b, applyReq(dPath, "fieldManager=A", strings.Replace(configs[0], "nginx:2", "nginx:0", 1))); rec.Code != http.StatusCreated {
		b.Fatalf("%d %s", rec.Code, rec.Body)
	}
	b.Run("apply", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			if rec := env.do(b, applyReq(dPath, "fieldManager=A", configs[i%2])); rec.Code != http.StatusOK {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
		}
	})
	b.Run("strategic merge patch", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			if rec := env.do(b, patchReq(dPath, "fieldManager=C", "application/strategic-merge-patch+json", patches[i%2])); rec.Code != http.StatusOK {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
		}
	})
}
