package namespace

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// Delete enforces the namespace life cycle. The first DELETE only marks the
// namespace: deletionTimestamp is set, the phase becomes Terminating and
// the namespace is returned (deleted=false); the namespace controller then
// removes its content and its spec finalizers. A DELETE of a terminating
// namespace that still has spec finalizers returns it unchanged; once they
// are gone the namespace is deleted like any object (metadata finalizers
// still hold it).
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	obj, err := r.store.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, false, err
	}
	ns := obj.(*corev1.Namespace)
	if options == nil {
		options = metav1.NewDeleteOptions(0)
	} else {
		options = options.DeepCopy()
	}
	if deleteValidation == nil {
		deleteValidation = rest.ValidateAllObjectFunc
	}
	if err := pinPreconditions(ns, options); err != nil {
		return nil, false, err
	}
	if ns.DeletionTimestamp.IsZero() {
		return r.markTerminating(ctx, ns, deleteValidation, options)
	}
	if len(ns.Spec.Finalizers) > 0 {
		return ns, false, nil
	}
	return r.store.Delete(ctx, name, deleteValidation, options)
}

// pinPreconditions checks the request's preconditions against the
// namespace just read and pins its UID, so the mark cannot land on a
// namespace recreated under the same name in between.
func pinPreconditions(ns *corev1.Namespace, options *metav1.DeleteOptions) error {
	if options.Preconditions == nil {
		options.Preconditions = &metav1.Preconditions{}
	}
	p := options.Preconditions
	if p.UID == nil {
		uid := ns.UID
		p.UID = &uid
	} else if *p.UID != ns.UID {
		return apierrors.NewConflict(corev1.Resource("namespaces"), ns.Name,
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, ns.UID))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != ns.ResourceVersion {
		return apierrors.NewConflict(corev1.Resource("namespaces"), ns.Name,
			fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, ns.ResourceVersion))
	}
	return nil
}

// markTerminating writes the deletion mark in one guaranteed update. A dry
// run computes the marked namespace from the one read and writes nothing.
func (r *REST) markTerminating(ctx context.Context, ns *corev1.Namespace, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	mark := func(existing runtime.Object) (runtime.Object, error) {
		current, ok := existing.(*corev1.Namespace)
		if !ok {
			return nil, fmt.Errorf("expected a namespace, got %T", existing)
		}
		if err := deleteValidation(ctx, current); err != nil {
			return nil, err
		}
		markNamespace(current, options)
		return current, nil
	}
	if len(options.DryRun) > 0 {
		out, err := mark(ns.DeepCopy())
		return out, false, err
	}
	key, err := r.store.KeyFunc(ctx, ns.Name)
	if err != nil {
		return nil, false, err
	}
	preconditions := &storage.Preconditions{UID: options.Preconditions.UID, ResourceVersion: options.Preconditions.ResourceVersion}
	out := r.store.NewFunc()
	err = r.store.Storage.GuaranteedUpdate(ctx, key, out, false, preconditions,
		func(existing runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) { return mark(existing) })
	if err != nil {
		return nil, false, interpretError(err, ns.Name)
	}
	return out, false, nil
}

// markNamespace sets deletionTimestamp (once) and the Terminating phase,
// and records the propagation policy the way the garbage collector reads
// it: the orphan or foregroundDeletion finalizer.
func markNamespace(ns *corev1.Namespace, options *metav1.DeleteOptions) {
	if ns.DeletionTimestamp.IsZero() {
		now := metav1.Now()
		ns.DeletionTimestamp = &now
	}
	ns.Status.Phase = corev1.NamespaceTerminating
	ns.Finalizers = setFinalizer(ns.Finalizers, metav1.FinalizerOrphanDependents,
		shouldOrphan(options, slices.Contains(ns.Finalizers, metav1.FinalizerOrphanDependents)))
	ns.Finalizers = setFinalizer(ns.Finalizers, metav1.FinalizerDeleteDependents,
		shouldDeleteDependents(options, slices.Contains(ns.Finalizers, metav1.FinalizerDeleteDependents)))
}

// shouldOrphan reads the (deprecated) orphanDependents first, then
// propagationPolicy; without either the namespace keeps what it has.
func shouldOrphan(options *metav1.DeleteOptions, has bool) bool {
	//nolint:staticcheck // orphanDependents is deprecated but still honoured.
	if options.OrphanDependents != nil {
		return *options.OrphanDependents
	}
	if options.PropagationPolicy != nil {
		return *options.PropagationPolicy == metav1.DeletePropagationOrphan
	}
	return has
}

func shouldDeleteDependents(options *metav1.DeleteOptions, has bool) bool {
	//nolint:staticcheck // orphanDependents is deprecated but still honoured.
	if options.OrphanDependents != nil {
		return !*options.OrphanDependents
	}
	if options.PropagationPolicy != nil {
		return *options.PropagationPolicy == metav1.DeletePropagationForeground
	}
	return has
}

// setFinalizer adds or removes one finalizer, keeping the others in order.
func setFinalizer(finalizers []string, name string, want bool) []string {
	has := slices.Contains(finalizers, name)
	switch {
	case want && !has:
		return append(finalizers, name)
	case !want && has:
		return slices.DeleteFunc(finalizers, func(f string) bool { return f == name })
	}
	return finalizers
}

// interpretError turns a storage error of the marking update into the API
// error a client sees; API errors (from deleteValidation) pass unchanged.
func interpretError(err error, name string) error {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return err
	}
	var se *storage.Error
	if !errors.As(err, &se) {
		return apierrors.NewInternalError(err)
	}
	resource := corev1.Resource("namespaces")
	switch se.Code {
	case storage.ErrCodeKeyNotFound:
		return apierrors.NewNotFound(resource, name)
	case storage.ErrCodeResourceVersionConflicts:
		msg := se.Message
		if msg == "" {
			msg = "the object has been modified; please apply your changes to the latest version and try again"
		}
		return apierrors.NewConflict(resource, name, errors.New(msg))
	case storage.ErrCodeUnreachable:
		return apierrors.NewServerTimeout(resource, "delete", 2)
	default:
		return apierrors.NewInternalError(err)
	}
}
