package storagetest

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kapi-dev/kapi/internal/storage"
)

// benchStore returns the configmap store of b's backend.
func benchStore(b *testing.B, backend storage.Backend) storage.Interface {
	b.Helper()
	s, err := backend.ForResource(ConfigMapResource())
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkCreate measures Create of distinct configmaps.
func BenchmarkCreate(b *testing.B, backend storage.Backend) {
	s := benchStore(b, backend)
	ctx := context.Background()
	out := &corev1.ConfigMap{}
	i := 0
	for b.Loop() {
		name := fmt.Sprintf("cm-%d", i)
		i++
		if err := s.Create(ctx, ConfigMapKey("bench-create", name), newConfigMap("bench-create", name, nil), out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet measures Get of one configmap.
func BenchmarkGet(b *testing.B, backend storage.Backend) {
	s := benchStore(b, backend)
	ctx := context.Background()
	if err := s.Create(ctx, ConfigMapKey("bench-get", "a"), newConfigMap("bench-get", "a", nil), nil); err != nil {
		b.Fatal(err)
	}
	out := &corev1.ConfigMap{}
	for b.Loop() {
		if err := s.Get(ctx, ConfigMapKey("bench-get", "a"), storage.GetOptions{}, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList measures listing a namespace of 100 configmaps, whole and
// in pages of 10.
func BenchmarkList(b *testing.B, backend storage.Backend) {
	s := benchStore(b, backend)
	ctx := context.Background()
	for i := range 100 {
		name := fmt.Sprintf("cm-%03d", i)
		if err := s.Create(ctx, ConfigMapKey("bench-list", name), newConfigMap("bench-list", name, nil), nil); err != nil {
			b.Fatal(err)
		}
	}
	for _, limit := range []int64{0, 10} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			pred := storage.Everything
			pred.Limit = limit
			opts := storage.ListOptions{Recursive: true, Predicate: pred}
			for b.Loop() {
				if err := s.GetList(ctx, "/configmaps/bench-list", opts, &corev1.ConfigMapList{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
