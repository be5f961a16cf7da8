package handlers

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// errCreateInstead leaves storage's update when it found no object to
// update and creation is allowed: the write is then a create.
var errCreateInstead = errors.New("no object to update: create it")

// maxCreateRaces bounds how often an update that turned into a create
// starts again because another request created the object first.
const maxCreateRaces = 3

// updateMayCreate runs an update (PUT or PATCH) that may create the
// object. A write that creates is a create: it goes through the storage's
// Create, exactly as a POST does, so that everything a resource does only
// on create runs (the allocators of services and what else a storage
// wraps around Create, generateName, defaults, uid and creationTimestamp).
// Storage decides whether the object may be created (forceAllowCreate or
// its strategy); when it may, info's update is called with an empty object
// to compute what to create. If another request creates the object
// meanwhile, the update starts again against it.
func updateMayCreate(ctx context.Context, r rest.Updater, name string, info *updatedObjectInfo,
	createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc,
	forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	creater, canCreate := r.(rest.Creater)
	if !canCreate {
		return r.Update(ctx, name, info, createValidation, updateValidation, forceAllowCreate, opts)
	}
	compute := info.update
	attempt := &updatedObjectInfo{
		preconditions: info.preconditions,
		update: func(ctx context.Context, old runtime.Object) (runtime.Object, error) {
			exists, err := hasUID(old)
			if err != nil {
				return nil, err
			}
			if !exists {
				return nil, errCreateInstead
			}
			return compute(ctx, old)
		},
	}
	for race := 0; ; race++ {
		out, created, err := r.Update(ctx, name, attempt, createValidation, updateValidation, forceAllowCreate, opts)
		if !errors.Is(err, errCreateInstead) {
			return out, created, err
		}
		obj, err := compute(ctx, r.New())
		if err != nil {
			return nil, false, err
		}
		// As storage's update ignores it when it creates.
		if accessor, err := meta.Accessor(obj); err == nil {
			accessor.SetResourceVersion("")
		}
		out, err = creater.Create(ctx, obj, createValidation, updateToCreateOptions(opts))
		if apierrors.IsAlreadyExists(err) && race < maxCreateRaces {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		return out, true, nil
	}
}

// updateToCreateOptions carries the options of an update to the create it
// turned into.
func updateToCreateOptions(uo *metav1.UpdateOptions) *metav1.CreateOptions {
	co := &metav1.CreateOptions{}
	if uo != nil {
		co.DryRun, co.FieldManager, co.FieldValidation = uo.DryRun, uo.FieldManager, uo.FieldValidation
	}
	co.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("CreateOptions"))
	return co
}
