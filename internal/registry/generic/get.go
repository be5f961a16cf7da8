package generic

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
)

// Get reads one object; a missing one is a 404 naming it
// (`configmaps "foo" not found`).
func (s *Store) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	key, err := s.KeyFunc(ctx, name)
	if err != nil {
		return nil, err
	}
	var rv string
	if options != nil {
		rv = options.ResourceVersion
	}
	obj := s.NewFunc()
	if err := s.Storage.Get(ctx, key, storage.GetOptions{ResourceVersion: rv}, obj); err != nil {
		return nil, s.interpretStorageError(ctx, err, storageErrorContext{op: opGet, resource: s.qualifiedResource(ctx), name: name})
	}
	return obj, nil
}
