package controllers

import (
	"context"
	"fmt"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// maxConflictRetries bounds how often one write is recomputed against a
// fresher CRD before the name goes back on the queue.
const maxConflictRetries = 5

// mutateFunc changes a private copy of a CRD and reports whether it changed
// anything worth writing.
type mutateFunc func(crd *apiextv1.CustomResourceDefinition) bool

// update writes mutate's change of crd through to (the status or the main
// storage), reading the CRD again and recomputing on a conflict. It returns
// the stored CRD (crd itself when nothing needed writing), or nil when the
// CRD is gone.
func (c *controller) update(ctx context.Context, to rest.Updater, crd *apiextv1.CustomResourceDefinition, mutate mutateFunc) (*apiextv1.CustomResourceDefinition, error) {
	for attempt := 0; ; attempt++ {
		next := crd.DeepCopy()
		if !mutate(next) {
			return crd, nil
		}
		out, _, err := to.Update(ctx, crd.Name, rest.DefaultUpdatedObjectInfo(next), rest.ValidateAllObjectFunc, rest.ValidateAllObjectUpdateFunc, false, &metav1.UpdateOptions{})
		switch {
		case err == nil:
			stored, ok := out.(*apiextv1.CustomResourceDefinition)
			if !ok {
				return nil, fmt.Errorf("update of customresourcedefinition %q returned %T", crd.Name, out)
			}
			c.cache.put(stored)
			return stored, nil
		case apierrors.IsNotFound(err):
			return nil, nil
		case !apierrors.IsConflict(err) || attempt >= maxConflictRetries:
			return nil, err
		}
		if crd, err = c.get(ctx, crd.Name); crd == nil || err != nil {
			return nil, err
		}
	}
}

// get reads a CRD from storage; nil without error when it does not exist.
func (c *controller) get(ctx context.Context, name string) (*apiextv1.CustomResourceDefinition, error) {
	obj, err := c.crds.Get(ctx, name, &metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	crd, ok := obj.(*apiextv1.CustomResourceDefinition)
	if !ok {
		return nil, fmt.Errorf("get of customresourcedefinition %q returned %T", name, obj)
	}
	return crd, nil
}
