package generic

import (
	"context"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// Store implements rest.StandardStorage for any resource. A resource fills
// the fields that describe it and calls CompleteWithOptions.
type Store struct {
	// NewFunc returns an empty object of the kind (e.g. &corev1.ConfigMap{}).
	NewFunc func() runtime.Object
	// NewListFunc returns an empty list (e.g. &corev1.ConfigMapList{}).
	NewListFunc func() runtime.Object

	// DefaultQualifiedResource names the resource in errors:
	// configmaps "foo" not found.
	DefaultQualifiedResource schema.GroupResource
	// SingularQualifiedResource is the singular name for discovery.
	SingularQualifiedResource schema.GroupResource

	// KeyRootFunc and KeyFunc are filled by CompleteWithOptions from the
	// resource prefix and scope unless set.
	KeyRootFunc func(ctx context.Context) string
	KeyFunc     func(ctx context.Context, name string) (string, error)

	// PredicateFunc builds the selection predicate; filled from the
	// AttrFunc unless set.
	PredicateFunc func(label labels.Selector, field fields.Selector) storage.SelectionPredicate

	CreateStrategy rest.RESTCreateStrategy
	UpdateStrategy rest.RESTUpdateStrategy
	DeleteStrategy rest.RESTDeleteStrategy

	// ShouldDeleteDuringUpdate says whether an update finishes a pending
	// deletion (it removed the last thing holding the object). Defaults to
	// "no metadata.finalizers left on an object marked for deletion";
	// namespaces also wait for spec.finalizers.
	ShouldDeleteDuringUpdate func(obj, existing runtime.Object) bool

	// ReturnDeletedObject returns the deleted object instead of a Success
	// Status on DELETE (upstream does this for a few resources).
	ReturnDeletedObject bool

	// TableConvertor renders Tables; the default prints NAME and CREATED AT.
	TableConvertor rest.TableConvertor

	// ShortNamesList and CategoriesList are announced in discovery.
	ShortNamesList, CategoriesList []string

	// Storage is filled by CompleteWithOptions.
	Storage storage.Interface

	// DestroyFunc, when set, releases what the storage holds; Destroy calls
	// it.
	DestroyFunc func()

	// DeleteCollectionWorkers is how many deletes DeleteCollection runs at
	// once; values below 1 mean defaultDeleteCollectionWorkers.
	DeleteCollectionWorkers int
}
