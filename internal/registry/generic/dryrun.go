package generic

import (
	"context"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
)

// isDryRun reports dryRun=All, the only value validation lets through.
func isDryRun(dryRun []string) bool { return len(dryRun) > 0 }

// writer is the part of storage.Interface the write verbs use. A dry run
// swaps in dryRunWriter, so the verbs run the same code either way.
type writer interface {
	Create(ctx context.Context, key string, obj, out runtime.Object) error
	Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions, validateDeletion storage.ValidateObjectFunc) error
	GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool, preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error
}

// writerFor returns the storage itself, or a dry-run view of it.
func (s *Store) writerFor(dryRun []string) writer {
	if isDryRun(dryRun) {
		return dryRunWriter{s.Storage}
	}
	return s.Storage
}

// dryRunWriter reads the current state and runs every check a real write
// would (existence, preconditions, the update function, delete validation)
// but writes nothing. Results carry no new resourceVersion.
type dryRunWriter struct {
	s storage.Interface
}

func (w dryRunWriter) Create(ctx context.Context, key string, obj, out runtime.Object) error {
	existing := newEmptyLike(out)
	err := w.s.Get(ctx, key, storage.GetOptions{}, existing)
	switch {
	case err == nil:
		return storage.NewError(storage.ErrCodeKeyExists, key, 0, "")
	case !storage.IsNotFound(err):
		return err
	}
	return copyInto(obj, out)
}

func (w dryRunWriter) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions, validateDeletion storage.ValidateObjectFunc) error {
	if err := w.s.Get(ctx, key, storage.GetOptions{}, out); err != nil {
		return err
	}
	if err := preconditions.Check(key, out); err != nil {
		return err
	}
	if validateDeletion == nil {
		return nil
	}
	return validateDeletion(ctx, out)
}

func (w dryRunWriter) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool, preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error {
	current := newEmptyLike(destination)
	if err := w.s.Get(ctx, key, storage.GetOptions{IgnoreNotFound: ignoreNotFound}, current); err != nil {
		return err
	}
	if err := preconditions.Check(key, current); err != nil {
		return err
	}
	rv, err := w.s.Versioner().ObjectResourceVersion(current)
	if err != nil {
		return err
	}
	updated, err := tryUpdate(current, storage.ResponseMeta{ResourceVersion: rv})
	if err != nil {
		return err
	}
	return copyInto(updated, destination)
}

// newEmptyLike returns a zero object of obj's concrete type (for
// unstructured objects, an empty instance).
func newEmptyLike(obj runtime.Object) runtime.Object {
	if u, ok := obj.(runtime.Unstructured); ok {
		return u.NewEmptyInstance()
	}
	return reflect.New(reflect.TypeOf(obj).Elem()).Interface().(runtime.Object)
}

// copyInto deep-copies src into the object dst points to; both must be
// pointers to the same type, as the store's NewFunc guarantees.
func copyInto(src, dst runtime.Object) error {
	sv, dv := reflect.ValueOf(src), reflect.ValueOf(dst)
	if sv.Type() != dv.Type() || sv.Kind() != reflect.Pointer {
		return fmt.Errorf("cannot copy %T into %T", src, dst)
	}
	dv.Elem().Set(reflect.ValueOf(src.DeepCopyObject()).Elem())
	return nil
}
