package rest

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/validate/content"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

// BeforeCreate does what every create shares, in upstream's order: the
// server-owned metadata is reset and filled (uid, creationTimestamp, a name
// from generateName), the namespace is made to agree with the request, then
// the strategy prepares and validates the object, the common ObjectMeta
// rules are checked, warnings are recorded and the object is canonicalized.
//
// metadata.generation is left to the strategy: upstream sets it to 1 only in
// the PrepareForCreate of resources with a spec, so a ConfigMap keeps the
// value it was sent with (normally none).
//
// Errors are API status errors: 400 for a namespace mismatch, 422 for
// validation (field paths under the kind, e.g. `ConfigMap "foo" is invalid`).
func BeforeCreate(strategy RESTCreateStrategy, ctx context.Context, obj runtime.Object) error {
	objectMeta, kind, err := objectMetaAndKind(strategy, obj)
	if err != nil {
		return err
	}
	WipeObjectMetaSystemFields(objectMeta)
	FillObjectMetaSystemFields(objectMeta)
	if objectMeta.GetName() == "" && objectMeta.GetGenerateName() != "" {
		objectMeta.SetName(nameGeneratorFor(strategy).GenerateName(objectMeta.GetGenerateName()))
	}

	expected := ExpectedNamespaceForScope(request.NamespaceValue(ctx), strategy.NamespaceScoped())
	if err := EnsureObjectNamespaceMatchesRequestNamespace(expected, objectMeta); err != nil {
		return err
	}

	strategy.PrepareForCreate(ctx, obj)
	if errs := strategy.Validate(ctx, obj); len(errs) > 0 {
		return apierrors.NewInvalid(kind.GroupKind(), objectMeta.GetName(), errs)
	}
	// The common rules run after the strategy's so that a resource's own,
	// more specific message wins when both would complain.
	errs := genericvalidation.ValidateObjectMetaAccessor(objectMeta, strategy.NamespaceScoped(), validatePathSegment, field.NewPath("metadata"))
	if len(errs) > 0 {
		return apierrors.NewInvalid(kind.GroupKind(), objectMeta.GetName(), errs)
	}

	for _, w := range strategy.WarningsOnCreate(ctx, obj) {
		warning.AddWarning(ctx, "", w)
	}
	strategy.Canonicalize(obj)
	return nil
}

// validatePathSegment is the least every name must satisfy: it becomes one
// segment of a URL path and of a storage key.
func validatePathSegment(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}

// CheckGeneratedNameError turns an AlreadyExists on an object whose name
// the server generated into upstream's "could not generate a unique name"
// conflict; any other error, or a name the client chose, passes unchanged.
func CheckGeneratedNameError(resource schema.GroupResource, err error, obj runtime.Object) error {
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	objectMeta, metaErr := meta.Accessor(obj)
	if metaErr != nil || objectMeta.GetGenerateName() == "" {
		return err
	}
	return apierrors.NewGenerateNameConflict(resource, objectMeta.GetName(), 1)
}
