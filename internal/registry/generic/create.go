package generic

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// maxGenerateNameAttempts is how many random names a create with
// generateName tries before giving up, as upstream: with five random
// characters, eight tries keep collisions rare up to about a million
// objects per prefix.
const maxGenerateNameAttempts = 8

// Create stores a new object and returns it as stored (with uid,
// creationTimestamp and resourceVersion). createValidation runs on the
// fully formed object (admission). A taken name is a 409 AlreadyExists; a
// generated name is retried with fresh random suffixes. With dryRun=All
// everything is checked and nothing is written.
func (s *Store) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if options == nil {
		options = &metav1.CreateOptions{}
	}
	if !needsGeneratedName(obj) {
		return s.create(ctx, obj, createValidation, options)
	}
	var err error
	for range maxGenerateNameAttempts {
		var out runtime.Object
		// Each attempt starts from the request's object, so it gets a new
		// name and nothing from the failed attempt.
		out, err = s.create(ctx, obj.DeepCopyObject(), createValidation, options)
		if !apierrors.IsAlreadyExists(err) {
			return out, err
		}
	}
	return nil, err
}

func needsGeneratedName(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	return err == nil && m.GetName() == "" && m.GetGenerateName() != ""
}

func (s *Store) create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if err := rest.BeforeCreate(s.CreateStrategy, ctx, obj); err != nil {
		return nil, err
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	// As upstream's etcd3 store: a new object cannot claim a revision.
	if m.GetResourceVersion() != "" {
		return nil, apierrors.NewInternalError(errors.New("resourceVersion should not be set on objects to be created"))
	}
	name := m.GetName()
	key, err := s.KeyFunc(ctx, name)
	if err != nil {
		return nil, err
	}
	out := s.NewFunc()
	if err := s.writerFor(options.DryRun).Create(ctx, key, obj, out); err != nil {
		return nil, s.createError(ctx, err, key, obj, name)
	}
	return out, nil
}

// createError translates a failed create. A name taken by an object that
// is being deleted says so, since retrying later will work.
func (s *Store) createError(ctx context.Context, err error, key string, obj runtime.Object, name string) error {
	resource := s.qualifiedResource(ctx)
	err = s.interpretStorageError(ctx, err, storageErrorContext{op: opCreate, resource: resource, name: name})
	err = rest.CheckGeneratedNameError(resource, err, obj)
	var status *apierrors.StatusError
	if !apierrors.IsAlreadyExists(err) || !errors.As(err, &status) {
		return err
	}
	existing := s.NewFunc()
	if s.Storage.Get(ctx, key, storage.GetOptions{}, existing) != nil {
		return err
	}
	if m, mErr := meta.Accessor(existing); mErr == nil && m.GetDeletionTimestamp() != nil {
		status.ErrStatus.Message = fmt.Sprintf("object is being deleted: %s", status.ErrStatus.Message)
	}
	return err
}
