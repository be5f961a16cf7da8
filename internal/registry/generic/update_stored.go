package generic

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
)

// UpdateStored changes the stored object name with tryUpdate, bypassing
// the update strategy: for a registry's own bookkeeping writes (upstream's
// CRD registry marks a CRD for deletion this way, status and all). It
// honours preconditions and dry run, retries tryUpdate on a lost race, and
// answers storage errors as an update would.
func (s *Store) UpdateStored(ctx context.Context, name string, preconditions *storage.Preconditions, dryRun []string, tryUpdate func(existing runtime.Object) (runtime.Object, error)) (runtime.Object, error) {
	key, err := s.KeyFunc(ctx, name)
	if err != nil {
		return nil, err
	}
	out := s.NewFunc()
	err = s.writerFor(dryRun).GuaranteedUpdate(ctx, key, out, false, preconditions,
		func(existing runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			return tryUpdate(existing)
		})
	if err != nil {
		return nil, s.interpretStorageError(ctx, err, storageErrorContext{op: opUpdate, resource: s.qualifiedResource(ctx), name: name})
	}
	return out, nil
}
