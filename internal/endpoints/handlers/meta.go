package handlers

import (
	"context"
	"fmt"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

// Upstream's warnings for duplicate owner references, which it drops.
const (
	duplicateOwnerReferencesWarningFormat                       = ".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: %v"
	duplicateOwnerReferencesAfterMutatingAdmissionWarningFormat = ".metadata.ownerReferences contains duplicate entries after mutating admission happens; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: %v"
)

// hasUID tells a stored object from the empty one storage hands to an
// update that will create.
func hasUID(obj runtime.Object) (bool, error) {
	if obj == nil {
		return false, nil
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return false, apierrors.NewInternalError(err)
	}
	return accessor.GetUID() != "", nil
}

// checkName refuses a body whose name differs from the URL's.
func checkName(obj runtime.Object, name, namespace string) error {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf(
			"the name of the object (%s based on URL) was undeterminable: %v", name, err))
	}
	if accessor.GetName() == "" {
		return errEmptyName
	}
	if accessor.GetName() != name {
		return apierrors.NewBadRequest(fmt.Sprintf(
			"the name of the object (%s) does not match the name on the URL (%s)", accessor.GetName(), name))
	}
	if ns := accessor.GetNamespace(); namespace != "" && ns != "" && ns != namespace {
		return apierrors.NewBadRequest(fmt.Sprintf(
			"the namespace of the object (%s) does not match the namespace on the request (%s)", ns, namespace))
	}
	return nil
}

// ensureNamespace makes the object's namespace the request's: it fills an
// empty one, clears it for cluster-scoped requests, and refuses a
// different one.
func ensureNamespace(obj runtime.Object, requestNamespace string) error {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return nil // objects without metadata have no namespace to check
	}
	switch ns := accessor.GetNamespace(); {
	case ns == requestNamespace:
	case ns == "" || requestNamespace == "":
		accessor.SetNamespace(requestNamespace)
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// wipeSystemFields clears what only the server sets on create.
func wipeSystemFields(obj runtime.Object) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	accessor.SetCreationTimestamp(metav1.Time{})
	accessor.SetUID("")
	accessor.SetDeletionTimestamp(nil)
	accessor.SetDeletionGracePeriodSeconds(nil)
	accessor.SetSelfLink("")
}

// dedupOwnerReferences drops repeated owner references and warns about
// them, as upstream does.
func dedupOwnerReferences(ctx context.Context, obj runtime.Object, afterMutatingAdmission bool) {
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	refs := accessor.GetOwnerReferences()
	var kept []metav1.OwnerReference
	var duplicates []string
	seen := map[types.UID]bool{}
	for _, ref := range refs {
		if seen[ref.UID] && containsOwnerReference(kept, ref) {
			duplicates = append(duplicates, string(ref.UID))
			continue
		}
		seen[ref.UID] = true
		kept = append(kept, ref)
	}
	if len(duplicates) == 0 {
		return
	}
	format := duplicateOwnerReferencesWarningFormat
	if afterMutatingAdmission {
		format = duplicateOwnerReferencesAfterMutatingAdmissionWarningFormat
	}
	warning.AddWarning(ctx, "", fmt.Sprintf(format, strings.Join(duplicates, ", ")))
	accessor.SetOwnerReferences(kept)
}

func containsOwnerReference(refs []metav1.OwnerReference, ref metav1.OwnerReference) bool {
	for _, r := range refs {
		if apiequality.Semantic.DeepEqual(r, ref) {
			return true
		}
	}
	return false
}
