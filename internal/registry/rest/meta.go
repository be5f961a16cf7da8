package rest

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// objectMetaAndKind returns the metadata and the kind of obj. Both failures
// mean the strategy was wired to the wrong type, a server bug, hence 500.
func objectMetaAndKind(typer runtime.ObjectTyper, obj runtime.Object) (metav1.Object, schema.GroupVersionKind, error) {
	objectMeta, err := meta.Accessor(obj)
	if err != nil {
		return nil, schema.GroupVersionKind{}, apierrors.NewInternalError(err)
	}
	kinds, _, err := typer.ObjectKinds(obj)
	if err != nil {
		return nil, schema.GroupVersionKind{}, apierrors.NewInternalError(err)
	}
	if len(kinds) == 0 {
		return nil, schema.GroupVersionKind{}, apierrors.NewInternalError(fmt.Errorf("no kind is registered for %T", obj))
	}
	return objectMeta, kinds[0], nil
}

// FillObjectMetaSystemFields gives a new object the fields only the server
// sets: a fresh uid and the creation time. A selfLink is never stored.
func FillObjectMetaSystemFields(m metav1.Object) {
	m.SetCreationTimestamp(metav1.Now())
	m.SetUID(uuid.NewUUID())
	m.SetSelfLink("")
}

// WipeObjectMetaSystemFields clears the server-owned fields a client may
// have sent on create, so nothing of them reaches storage.
func WipeObjectMetaSystemFields(m metav1.Object) {
	m.SetCreationTimestamp(metav1.Time{})
	m.SetUID("")
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetSelfLink("")
}

// EnsureObjectNamespaceMatchesRequestNamespace makes obj's namespace equal
// to requestNamespace: an empty one on the object is filled, an empty
// request namespace (cluster-scoped) clears it, and two different non-empty
// values are a 400.
func EnsureObjectNamespaceMatchesRequestNamespace(requestNamespace string, obj metav1.Object) error {
	objNamespace := obj.GetNamespace()
	switch {
	case objNamespace == requestNamespace:
		return nil
	case objNamespace == metav1.NamespaceNone:
		obj.SetNamespace(requestNamespace)
		return nil
	case requestNamespace == metav1.NamespaceNone:
		obj.SetNamespace(metav1.NamespaceNone)
		return nil
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
}

// ExpectedNamespaceForScope is the namespace an object of a resource must
// carry: the request's for namespaced resources, none otherwise.
func ExpectedNamespaceForScope(requestNamespace string, namespaceScoped bool) string {
	if namespaceScoped {
		return requestNamespace
	}
	return metav1.NamespaceNone
}
