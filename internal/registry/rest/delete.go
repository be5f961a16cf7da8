package rest

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GarbageCollectionPolicy is what a resource's deletion does to its
// dependents when the client names no propagation policy.
type GarbageCollectionPolicy string

const (
	// DeleteDependents: dependents are deleted in the background (the
	// default for resources without a policy).
	DeleteDependents GarbageCollectionPolicy = "DeleteDependents"
	// OrphanDependents: dependents are kept, as before server-side garbage
	// collection existed (core/v1 ReplicationControllers, batch/v1 Jobs).
	OrphanDependents GarbageCollectionPolicy = "OrphanDependents"
	// Unsupported: the resource is never garbage collected, so the orphan
	// and foregroundDeletion finalizers are never set on it (events).
	Unsupported GarbageCollectionPolicy = "Unsupported"
)

// GarbageCollectionDeleteStrategy is implemented by the delete strategy of
// a resource whose default policy is not DeleteDependents.
type GarbageCollectionDeleteStrategy interface {
	// DefaultGarbageCollectionPolicy may depend on the request's group
	// version (the legacy versions of a resource kept orphaning).
	DefaultGarbageCollectionPolicy(ctx context.Context) GarbageCollectionPolicy
}

// RESTGracefulDeleteStrategy is implemented by the delete strategy of a
// resource whose objects linger for a grace period (pods). Resources
// without it are deleted at once, or marked when finalizers remain.
type RESTGracefulDeleteStrategy interface {
	// CheckGracefulDelete reports whether obj is deleted gracefully and
	// fills options.GracePeriodSeconds when it is.
	CheckGracefulDelete(ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) bool
}

// BeforeDelete checks a delete against the current object obj and decides
// how it proceeds. graceful means obj now carries a deletionTimestamp in
// the future and must be written back rather than removed; gracefulPending
// means an earlier graceful delete is already under way and this one
// changes nothing. options may be updated (a negative grace period becomes
// one second; graceful strategies fill the default period).
//
// Errors: 422 for invalid options (orphanDependents together with
// propagationPolicy, an unknown policy), 409 when a precondition does not
// match obj.
//
// The orphan and foregroundDeletion finalizers that propagationPolicy asks
// for are the generic store's business, not this function's.
func BeforeDelete(strategy RESTDeleteStrategy, ctx context.Context, obj runtime.Object, options *metav1.DeleteOptions) (graceful, gracefulPending bool, err error) {
	objectMeta, gvk, err := objectMetaAndKind(strategy, obj)
	if err != nil {
		return false, false, err
	}
	if errs := metav1validation.ValidateDeleteOptions(options); len(errs) > 0 {
		return false, false, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
	}
	if err := checkDeletePreconditions(gvk, objectMeta, options.Preconditions); err != nil {
		return false, false, err
	}

	// A negative period means "as soon as possible"; upstream reads it as 1s.
	if p := options.GracePeriodSeconds; p != nil && *p < 0 {
		options.GracePeriodSeconds = int64Ptr(1)
	}
	if p := objectMeta.GetDeletionGracePeriodSeconds(); p != nil && *p < 0 {
		objectMeta.SetDeletionGracePeriodSeconds(int64Ptr(1))
	}

	gracefulStrategy, ok := strategy.(RESTGracefulDeleteStrategy)
	if !ok {
		return false, false, nil
	}
	if objectMeta.GetDeletionTimestamp() != nil {
		return shortenPendingDeletion(objectMeta, options)
	}
	if !gracefulStrategy.CheckGracefulDelete(ctx, obj, options) {
		return false, false, nil
	}
	if options.GracePeriodSeconds == nil {
		return false, false, apierrors.NewInternalError(fmt.Errorf("graceful delete strategy for %s set no grace period", gvk.Kind))
	}
	when := metav1.NewTime(metav1.Now().Add(time.Duration(*options.GracePeriodSeconds) * time.Second))
	objectMeta.SetDeletionTimestamp(&when)
	objectMeta.SetDeletionGracePeriodSeconds(options.GracePeriodSeconds)
	// Controllers watch generation; the first deletion mark is a change of
	// intent, so it counts as one for objects that track generation.
	if objectMeta.GetGeneration() > 0 {
		objectMeta.SetGeneration(objectMeta.GetGeneration() + 1)
	}
	return true, false, nil
}

// checkDeletePreconditions fails early, before any write, with upstream's
// wording; storage enforces the same preconditions again at write time.
// Upstream names the kind, not the resource, in these conflicts.
func checkDeletePreconditions(gvk schema.GroupVersionKind, objectMeta metav1.Object, p *metav1.Preconditions) error {
	if p == nil {
		return nil
	}
	gr := schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}
	if p.UID != nil && *p.UID != objectMeta.GetUID() {
		return apierrors.NewConflict(gr, objectMeta.GetName(), fmt.Errorf(
			"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated",
			*p.UID, objectMeta.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != objectMeta.GetResourceVersion() {
		return apierrors.NewConflict(gr, objectMeta.GetName(), fmt.Errorf(
			"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified",
			*p.ResourceVersion, objectMeta.GetResourceVersion()))
	}
	return nil
}

// shortenPendingDeletion handles a delete of an object already being
// deleted gracefully: only a shorter grace period changes anything.
func shortenPendingDeletion(objectMeta metav1.Object, options *metav1.DeleteOptions) (graceful, gracefulPending bool, err error) {
	current := objectMeta.GetDeletionGracePeriodSeconds()
	// No period, or zero: an earlier delete marked the object but did not
	// remove it (a crash between the two writes); remove it now.
	if current == nil || *current == 0 {
		return false, false, nil
	}
	if options.GracePeriodSeconds == nil {
		options.GracePeriodSeconds = current
		return false, true, nil
	}
	period := *options.GracePeriodSeconds
	if period >= *current {
		return false, true, nil
	}
	start := objectMeta.GetDeletionTimestamp().Add(-time.Duration(*current) * time.Second)
	when := metav1.NewTime(start.Add(time.Duration(period) * time.Second))
	objectMeta.SetDeletionTimestamp(&when)
	objectMeta.SetDeletionGracePeriodSeconds(&period)
	return true, false, nil
}

func int64Ptr(v int64) *int64 { return &v }
