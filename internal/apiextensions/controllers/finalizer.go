package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kapi-dev/kapi/internal/apis/apiextensions/apihelpers"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// CleanupFinalizer holds a deleted CRD until its custom resources are
// gone; the registry adds it on the first DELETE.
const CleanupFinalizer = apihelpers.CustomResourceCleanupFinalizer

// instanceStorage is what the cleanup needs of a CRD's custom resources.
type instanceStorage interface {
	rest.Lister
	rest.CollectionDeleter
}

// errInstancesRemain makes the cleanup look again later: custom resources
// held by their own finalizers are still there.
var errInstancesRemain = errors.New("custom resources remain")

// needsCleanup is whether the finalizer controller has work on crd.
func needsCleanup(crd *apiextv1.CustomResourceDefinition) bool {
	return crd.DeletionTimestamp != nil && slices.Contains(crd.Finalizers, CleanupFinalizer)
}

// syncCleanup is the finalizer controller: a deleted CRD reports
// Terminating, loses its custom resources in every namespace, and then its
// finalizer, so that the storage removes it.
func (c *controller) syncCleanup(ctx context.Context, name string) error {
	crd, err := c.get(ctx, name)
	if crd == nil || err != nil || !needsCleanup(crd) {
		return err
	}
	crd, err = c.setTerminating(ctx, crd, apiextv1.ConditionTrue, "InstanceDeletionInProgress", "CustomResource deletion is in progress")
	if crd == nil || err != nil {
		return err
	}

	if isConditionTrue(crd, apiextv1.Established) {
		status, reason, message, deleteErr := c.deleteInstances(ctx, crd)
		crd, err = c.setTerminating(ctx, crd, status, reason, message)
		if deleteErr != nil {
			return errors.Join(deleteErr, err)
		}
	} else {
		crd, err = c.setTerminating(ctx, crd, apiextv1.ConditionFalse, "NeverEstablished", "resource was never established")
	}
	if crd == nil || err != nil {
		return err
	}

	// Through the main storage: that is where finalizers are owned, and an
	// update leaving a deleted object without finalizers removes it.
	_, err = c.update(ctx, c.crds, crd, func(crd *apiextv1.CustomResourceDefinition) bool {
		n := len(crd.Finalizers)
		crd.Finalizers = slices.DeleteFunc(crd.Finalizers, func(f string) bool { return f == CleanupFinalizer })
		return len(crd.Finalizers) != n
	})
	return err
}

func (c *controller) setTerminating(ctx context.Context, crd *apiextv1.CustomResourceDefinition, status apiextv1.ConditionStatus, reason, message string) (*apiextv1.CustomResourceDefinition, error) {
	cond := apiextv1.CustomResourceDefinitionCondition{Type: apiextv1.Terminating, Status: status, Reason: reason, Message: message}
	return c.update(ctx, c.status, crd, func(crd *apiextv1.CustomResourceDefinition) bool {
		if sameCondition(&cond, findCondition(crd, apiextv1.Terminating)) {
			return false
		}
		setCondition(crd, cond, c.now())
		return true
	})
}

// deleteInstances deletes every custom resource of crd, one collection per
// namespace, and returns the Terminating condition that reports how it
// went. It fails with errInstancesRemain while deleted resources linger.
func (c *controller) deleteInstances(ctx context.Context, crd *apiextv1.CustomResourceDefinition) (apiextv1.ConditionStatus, string, string, error) {
	failed := func(format string, err error) (apiextv1.ConditionStatus, string, string, error) {
		return apiextv1.ConditionTrue, "InstanceDeletionFailed", fmt.Sprintf(format, err), err
	}
	var storage instanceStorage
	if c.instances != nil {
		if s := c.instances(crd.Spec.Group, crd.Status.AcceptedNames.Plural); s != nil {
			is, ok := s.(instanceStorage)
			if !ok {
				err := fmt.Errorf("unable to find a custom resource client for %s.%s: storage %T cannot list and delete", crd.Status.AcceptedNames.Plural, crd.Spec.Group, s)
				return failed("could not list instances: %v", err)
			}
			storage = is
		}
	}
	if storage == nil {
		// Nothing serves the resource, so nothing can have been stored
		// through kapi to delete.
		c.logger.Info("no custom resource storage to clean up", "crd", crd.Name)
		return apiextv1.ConditionFalse, "InstanceDeletionCompleted", "removed all instances", nil
	}

	namespaces, err := instanceNamespaces(ctx, storage)
	if err != nil {
		return failed("could not list instances: %v", err)
	}
	var errs []error
	for _, ns := range namespaces {
		nsCtx := request.WithNamespace(ctx, ns)
		if _, err := storage.DeleteCollection(nsCtx, rest.ValidateAllObjectFunc, &metav1.DeleteOptions{}, &metainternalversion.ListOptions{}); err != nil {
			errs = append(errs, err)
		}
	}
	if agg := utilerrors.NewAggregate(errs); agg != nil {
		return failed("could not issue all deletes: %v", agg)
	}

	remaining, err := instanceNamespaces(ctx, storage)
	if err != nil {
		return apiextv1.ConditionTrue, "InstanceDeletionCheck", fmt.Sprintf("could not confirm zero CustomResources remaining: %v", err), err
	}
	if len(remaining) > 0 {
		return apiextv1.ConditionTrue, "InstanceDeletionInProgress", "CustomResource deletion is in progress", errInstancesRemain
	}
	return apiextv1.ConditionFalse, "InstanceDeletionCompleted", "removed all instances", nil
}

// instanceNamespaces lists the custom resources of every namespace and
// returns the namespaces they live in ("" for cluster-scoped ones).
func instanceNamespaces(ctx context.Context, storage instanceStorage) ([]string, error) {
	list, err := storage.List(request.WithNamespace(ctx, metav1.NamespaceAll), &metainternalversion.ListOptions{})
	if err != nil {
		return nil, err
	}
	var namespaces []string
	err = meta.EachListItem(list, func(obj runtime.Object) error {
		m, err := meta.Accessor(obj)
		if err != nil {
			return err
		}
		if !slices.Contains(namespaces, m.GetNamespace()) {
			namespaces = append(namespaces, m.GetNamespace())
		}
		return nil
	})
	return namespaces, err
}
