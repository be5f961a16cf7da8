package controlplane

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/storage/cacher"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// Destroying a store's storage stops its watch cache and the object
// counter forgets it.
func TestDestroyReleasesTheResourceStorage(t *testing.T) {
	backend := cacher.NewBackend(memory.New(), cacher.Options{})
	t.Cleanup(func() { _ = backend.Close() })
	g := &restOptionsGetter{backend: backend}
	gr := schema.GroupResource{Group: "example.com", Resource: "widgets"}
	opts, err := g.GetRESTOptions(gr, &unstructured.Unstructured{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := opts.Storage(func() runtime.Object { return &unstructured.Unstructured{} },
		func() runtime.Object { return &unstructured.UnstructuredList{} })
	if err != nil {
		t.Fatal(err)
	}
	if backend.Caches() != 1 || len(g.resource) != 1 {
		t.Fatalf("after building the storage: %d caches, %d counted resources, want 1 and 1", backend.Caches(), len(g.resource))
	}
	d, ok := s.(generic.StorageDestroyer)
	if !ok {
		t.Fatalf("the storage (%T) cannot be destroyed", s)
	}
	d.Destroy()
	if backend.Caches() != 0 || len(g.resource) != 0 {
		t.Errorf("after Destroy: %d caches, %d counted resources, want 0 and 0", backend.Caches(), len(g.resource))
	}
}
