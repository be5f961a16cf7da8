package cacher

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// BenchmarkPagedList reads 10,000 configmaps of 1 KiB in pages of 500, a
// consistent first page and 19 continuations, from the cache and from the
// memory store below it, with the cache's metrics recorded.
func BenchmarkPagedList(b *testing.B) {
	const objects = 10000
	inner := memory.New()
	b.Cleanup(func() { _ = inner.Close() })
	res := storagetest.ConfigMapResource()
	s, err := inner.ForResource(res)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	payload := strings.Repeat("x", 1000)
	for i := range objects {
		cm := configMap("bench", fmt.Sprintf("cm-%05d", i), nil)
		cm.Data["payload"] = payload
		if err := s.Create(ctx, storagetest.ConfigMapKey("bench", cm.Name), cm, nil); err != nil {
			b.Fatal(err)
		}
	}
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(Config{Storage: s, ResourcePrefix: res.ResourcePrefix, NewFunc: res.NewFunc, NewListFunc: res.NewListFunc,
		Metrics: m.WatchCache(schema.GroupResource{Resource: "configmaps"})})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Stop)
	if err := c.WaitReady(ctx); err != nil {
		b.Fatal(err)
	}
	for _, from := range []struct {
		name string
		s    storage.Interface
	}{{"cache", c}, {"storage", s}} {
		b.Run(from.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				opts := storage.ListOptions{Recursive: true, Predicate: storage.Everything}
				opts.Predicate.Limit = 500
				n := 0
				for {
					list := &corev1.ConfigMapList{}
					if err := from.s.GetList(ctx, "/configmaps", opts, list); err != nil {
						b.Fatal(err)
					}
					n += len(list.Items)
					if list.Continue == "" {
						break
					}
					opts.Predicate.Continue = list.Continue
				}
				if n != objects {
					b.Fatalf("paged through %d configmaps, want %d", n, objects)
				}
			}
		})
	}
}
