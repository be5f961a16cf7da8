package rest

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

// BeforeUpdate does what every update shares: the namespace must agree with
// the request, the client cannot change generation (strategies bump it), the
// fields the server owns are carried over from old (uid when absent,
// creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds), and the
// common ObjectMeta rules and the strategy's ValidateUpdate run together so
// that one 422 lists every problem. Warnings are recorded and the object is
// canonicalized last.
func BeforeUpdate(strategy RESTUpdateStrategy, ctx context.Context, obj, old runtime.Object) error {
	objectMeta, kind, err := objectMetaAndKind(strategy, obj)
	if err != nil {
		return err
	}
	expected := ExpectedNamespaceForScope(request.NamespaceValue(ctx), strategy.NamespaceScoped())
	if err := EnsureObjectNamespaceMatchesRequestNamespace(expected, objectMeta); err != nil {
		return err
	}
	oldMeta, err := meta.Accessor(old)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	objectMeta.SetGeneration(oldMeta.GetGeneration())

	strategy.PrepareForUpdate(ctx, obj, old)
	keepServerOwnedFields(objectMeta, oldMeta)

	errs := genericvalidation.ValidateObjectMetaAccessor(objectMeta, strategy.NamespaceScoped(), validatePathSegment, field.NewPath("metadata"))
	errs = append(errs, genericvalidation.ValidateObjectMetaAccessorUpdate(objectMeta, oldMeta, field.NewPath("metadata"))...)
	errs = append(errs, strategy.ValidateUpdate(ctx, obj, old)...)
	if len(errs) > 0 {
		return apierrors.NewInvalid(kind.GroupKind(), objectMeta.GetName(), errs)
	}

	for _, w := range strategy.WarningsOnUpdate(ctx, obj, old) {
		warning.AddWarning(ctx, "", w)
	}
	strategy.Canonicalize(obj)
	return nil
}

// keepServerOwnedFields copies from old what an update may not change or
// drop. A uid the client did send is kept so validation can reject a
// different one as immutable.
func keepServerOwnedFields(objectMeta, oldMeta metav1.Object) {
	if objectMeta.GetUID() == "" {
		objectMeta.SetUID(oldMeta.GetUID())
	}
	if created := oldMeta.GetCreationTimestamp(); !created.IsZero() {
		objectMeta.SetCreationTimestamp(created)
	}
	if !oldMeta.GetDeletionTimestamp().IsZero() {
		objectMeta.SetDeletionTimestamp(oldMeta.GetDeletionTimestamp())
	}
	if oldMeta.GetDeletionGracePeriodSeconds() != nil && objectMeta.GetDeletionGracePeriodSeconds() == nil {
		objectMeta.SetDeletionGracePeriodSeconds(oldMeta.GetDeletionGracePeriodSeconds())
	}
	objectMeta.SetSelfLink("")
}
