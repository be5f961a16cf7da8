package customresourcedefinition

import (
	"context"
	"fmt"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/apis/apiextensions/apihelpers"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// REST is the CRD store with upstream's delete: the first DELETE only
// marks the CRD (deletionTimestamp, the cleanup finalizer, Terminating) so
// that its custom resources are removed before it is.
type REST struct {
	*generic.Store
}

// NewREST wraps store (the customresourcedefinitions store).
func NewREST(store *generic.Store) *REST { return &REST{Store: store} }

// Delete marks a live CRD for deletion and answers it (200, not yet
// deleted); a CRD already marked is deleted as any object with finalizers.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	obj, err := r.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, false, err
	}
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return nil, false, apierrors.NewInternalError(fmt.Errorf("customresourcedefinitions store returned %T", obj))
	}
	if options == nil {
		options = metav1.NewDeleteOptions(0)
	} else {
		options = options.DeepCopy()
	}
	if options.Preconditions == nil {
		options.Preconditions = &metav1.Preconditions{}
	}
	pre := options.Preconditions
	if pre.UID == nil {
		pre.UID = &crd.UID
	} else if *pre.UID != crd.UID {
		return nil, false, apierrors.NewConflict(Resource("customresourcedefinitions"), name,
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *pre.UID, crd.UID))
	}
	if pre.ResourceVersion != nil && *pre.ResourceVersion != crd.ResourceVersion {
		return nil, false, apierrors.NewConflict(Resource("customresourcedefinitions"), name,
			fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *pre.ResourceVersion, crd.ResourceVersion))
	}
	if crd.DeletionTimestamp != nil {
		return r.Store.Delete(ctx, name, deleteValidation, options)
	}
	if deleteValidation == nil {
		deleteValidation = rest.ValidateAllObjectFunc
	}
	out, err := r.UpdateStored(ctx, name, &storage.Preconditions{UID: pre.UID, ResourceVersion: pre.ResourceVersion}, options.DryRun,
		func(existing runtime.Object) (runtime.Object, error) {
			if err := deleteValidation(ctx, existing); err != nil {
				return nil, err
			}
			crd, ok := existing.(*apiextensionsv1.CustomResourceDefinition)
			if !ok {
				return nil, fmt.Errorf("customresourcedefinitions store holds %T", existing)
			}
			markForCleanup(crd, time.Now())
			return crd, nil
		})
	if err != nil {
		return nil, false, err
	}
	return out, false, nil
}

// markForCleanup sets what the first DELETE of a CRD sets.
func markForCleanup(crd *apiextensionsv1.CustomResourceDefinition, now time.Time) {
	if crd.DeletionTimestamp == nil {
		t := metav1.NewTime(now)
		crd.DeletionTimestamp = &t
	}
	if !slices.Contains(crd.Finalizers, apihelpers.CustomResourceCleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, apihelpers.CustomResourceCleanupFinalizer)
	}
	apihelpers.SetCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue,
		Reason:  "InstanceDeletionPending",
		Message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
	}, metav1.NewTime(now))
}
