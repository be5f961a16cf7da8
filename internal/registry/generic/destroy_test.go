package generic_test

import (
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// destroyable hands out storages that count their Destroy calls, as a
// watch cache would release itself.
type destroyable struct {
	storage.Backend
	destroyed *atomic.Int64
}

func (b destroyable) ForResource(cfg storage.ResourceConfig) (storage.Interface, error) {
	s, err := b.Backend.ForResource(cfg)
	return destroyableStorage{Interface: s, destroyed: b.destroyed}, err
}

type destroyableStorage struct {
	storage.Interface
	destroyed *atomic.Int64
}

func (s destroyableStorage) Destroy() { s.destroyed.Add(1) }

// A store's Destroy releases a storage that can be destroyed; without
// that, every replaced custom resource store leaks its watch cache.
func TestDestroyReleasesTheStorage(t *testing.T) {
	scheme := resttest.NewScheme()
	codec := serializer.NewCodecFactory(scheme).LegacyCodec(corev1.SchemeGroupVersion)
	strategy := resttest.NewConfigMapStrategy(scheme)
	backend := memory.New()
	t.Cleanup(func() { _ = backend.Close() })
	var destroyed atomic.Int64
	s := &generic.Store{
		NewFunc:                   func() kruntime.Object { return &corev1.ConfigMap{} },
		NewListFunc:               func() kruntime.Object { return &corev1.ConfigMapList{} },
		DefaultQualifiedResource:  corev1.Resource("configmaps"),
		SingularQualifiedResource: corev1.Resource("configmap"),
		CreateStrategy:            strategy, UpdateStrategy: strategy, DeleteStrategy: strategy,
	}
	opts := restOptions{backend: destroyable{Backend: backend, destroyed: &destroyed}, codec: codec}
	if err := s.CompleteWithOptions(&generic.StoreOptions{RESTOptions: opts}); err != nil {
		t.Fatal(err)
	}
	s.Destroy()
	if n := destroyed.Load(); n != 1 {
		t.Errorf("storage destroyed %d times by the store's Destroy, want 1", n)
	}
}
