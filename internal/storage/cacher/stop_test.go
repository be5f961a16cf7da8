package cacher

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// A cache of a resource no longer served is stopped: its watches end, its
// backend forgets it, reads go to storage, and stopping again is harmless.
func TestDestroyedCacheIsForgotten(t *testing.T) {
	b := cachedBackend(t, memory.New())
	s, err := b.ForResource(storagetest.ConfigMapResource())
	if err != nil {
		t.Fatal(err)
	}
	c := s.(*Cacher)
	ctx := context.Background()
	if err := c.Create(ctx, "/configmaps/ns/a", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}, nil); err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(ctx, "/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: storage.Everything})
	if err != nil {
		t.Fatal(err)
	}
	if b.Caches() != 1 {
		t.Fatalf("%d caches, want 1", b.Caches())
	}

	c.Destroy()
	for range w.ResultChan() {
		// The initial event, then the channel closes.
	}
	if b.Caches() != 0 {
		t.Errorf("%d caches after Destroy, want 0", b.Caches())
	}
	list := &corev1.ConfigMapList{}
	if err := c.GetList(ctx, "/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: storage.Everything}, list); err != nil || len(list.Items) != 1 {
		t.Errorf("list after Destroy: %d items, %v; want 1 from storage", len(list.Items), err)
	}
	c.Destroy()
}
