package kvstore

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
)

// Delete removes key when the preconditions and validateDeletion accept the
// current object, retrying when the object changes in between. The deleted
// object goes to out with the deletion's revision as its resourceVersion.
func (s *store) Delete(ctx context.Context, key string, out runtime.Object,
	preconditions *storage.Preconditions, validateDeletion storage.ValidateObjectFunc) error {
	if err := s.checkKey(key); err != nil {
		return err
	}
	st, err := s.getState(ctx, key, false)
	if err != nil {
		return err
	}
	for {
		if err := preconditions.Check(key, st.obj); err != nil {
			return err
		}
		if validateDeletion != nil {
			if err := validateDeletion(ctx, st.obj); err != nil {
				return err
			}
		}
		rev, cur, ok, err := s.kv.Delete(ctx, key, st.rev)
		if err != nil {
			return err
		}
		if ok {
			if out == nil {
				return nil
			}
			return s.decodeInto(key, st.data, out, rev)
		}
		s.logger.Debug("delete lost a race, retrying", "key", key)
		if st, err = s.stateFrom(ctx, key, cur, false); err != nil {
			return err
		}
	}
}
