package garbagecollector

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/util/retry"
)

// restMappingError: the kind is not served, perhaps not yet (a CRD
// just created); the item is retried.
type restMappingError struct{ kind, version string }

func (e *restMappingError) Error() string {
	return fmt.Sprintf("unable to get REST mapping for %s/%s.", e.version, e.kind)
}

// apiResource maps an apiVersion and kind to the resource and its scope.
func (gc *GarbageCollector) apiResource(apiVersion, kind string) (schema.GroupVersionResource, bool, error) {
	gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
	mapping, err := gc.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return schema.GroupVersionResource{}, false, &restMappingError{kind: kind, version: apiVersion}
	}
	return mapping.Resource, mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// client is the metadata client for ref's resource in its namespace.
func (gc *GarbageCollector) client(ref objectReference) (metadata.ResourceInterface, error) {
	gvr, namespaced, err := gc.apiResource(ref.APIVersion, ref.Kind)
	if err != nil {
		return nil, err
	}
	if !namespaced {
		return gc.metadata.Resource(gvr), nil
	}
	if ref.Namespace == "" {
		return nil, errNamespacedOwnerOfClusterScoped
	}
	return gc.metadata.Resource(gvr).Namespace(ref.Namespace), nil
}

func (gc *GarbageCollector) getObject(ctx context.Context, ref objectReference) (*metav1.PartialObjectMetadata, error) {
	c, err := gc.client(ref)
	if err != nil {
		return nil, err
	}
	return c.Get(ctx, ref.Name, metav1.GetOptions{})
}

// deleteObject deletes ref if it is still the object whose owners were
// judged: same uid, and same resourceVersion or at least the same owner
// references.
func (gc *GarbageCollector) deleteObject(ctx context.Context, ref objectReference, resourceVersion string, owners []metav1.OwnerReference, policy metav1.DeletionPropagation) error {
	c, err := gc.client(ref)
	if err != nil {
		return err
	}
	uid := ref.UID
	opts := metav1.DeleteOptions{
		Preconditions:     &metav1.Preconditions{UID: &uid, ResourceVersion: &resourceVersion},
		PropagationPolicy: &policy,
	}
	err = c.Delete(ctx, ref.Name, opts)
	if apierrors.IsConflict(err) {
		live, getErr := c.Get(ctx, ref.Name, metav1.GetOptions{})
		if getErr != nil {
			return getErr
		}
		if live.UID == uid && reflect.DeepEqual(live.OwnerReferences, owners) {
			// Something else changed; the owners still say delete.
			opts.Preconditions.ResourceVersion = nil
			err = c.Delete(ctx, ref.Name, opts)
		}
	}
	if apierrors.IsNotFound(err) {
		gc.enqueueVirtualDelete(ref)
		return nil
	}
	return err
}

// removeFinalizer takes finalizer off ref, retrying on conflicts.
func (gc *GarbageCollector) removeFinalizer(ctx context.Context, ref objectReference, finalizer string) error {
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		obj, err := gc.getObject(ctx, ref)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if obj.UID != ref.UID || !slices.Contains(obj.Finalizers, finalizer) {
			return nil
		}
		kept := slices.DeleteFunc(slices.Clone(obj.Finalizers), func(f string) bool { return f == finalizer })
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
			"resourceVersion": obj.ResourceVersion,
			"finalizers":      kept,
		}})
		if err != nil {
			return err
		}
		_, err = gc.patchObject(ctx, ref, types.MergePatchType, patch)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
}

func (gc *GarbageCollector) patchObject(ctx context.Context, ref objectReference, pt types.PatchType, patch []byte) (*metav1.PartialObjectMetadata, error) {
	c, err := gc.client(ref)
	if err != nil {
		return nil, err
	}
	return c.Patch(ctx, ref.Name, pt, patch, metav1.PatchOptions{})
}

// patchOwnerReferences changes ref's owner references: a strategic merge
// patch (smp) where the resource supports it, else a JSON merge patch of
// the whole list as edit makes it from the latest object, guarded by its
// resourceVersion. Both carry the uid, so a recreated object is not
// touched.
func (gc *GarbageCollector) patchOwnerReferences(ctx context.Context, ref objectReference, smp []byte, edit func([]metav1.OwnerReference) []metav1.OwnerReference) error {
	_, err := gc.patchObject(ctx, ref, types.StrategicMergePatchType, smp)
	if !apierrors.IsUnsupportedMediaType(err) {
		return err
	}
	obj, err := gc.getObject(ctx, ref)
	if err != nil {
		return err
	}
	if obj.UID != ref.UID {
		return apierrors.NewNotFound(schema.GroupResource{}, ref.Name)
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"uid":             ref.UID,
		"resourceVersion": obj.ResourceVersion,
		"ownerReferences": edit(slices.Clone(obj.OwnerReferences)),
	}})
	if err != nil {
		return err
	}
	_, err = gc.patchObject(ctx, ref, types.MergePatchType, patch)
	return err
}

// removeOwnerReferences takes the references to owners off ref.
func (gc *GarbageCollector) removeOwnerReferences(ctx context.Context, ref objectReference, owners []types.UID) error {
	deletes := make([]map[string]any, 0, len(owners))
	for _, uid := range owners {
		deletes = append(deletes, map[string]any{"$patch": "delete", "uid": uid})
	}
	smp, err := json.Marshal(map[string]any{"metadata": map[string]any{"uid": ref.UID, "ownerReferences": deletes}})
	if err != nil {
		return err
	}
	return gc.patchOwnerReferences(ctx, ref, smp, func(refs []metav1.OwnerReference) []metav1.OwnerReference {
		return slices.DeleteFunc(refs, func(r metav1.OwnerReference) bool { return slices.Contains(owners, r.UID) })
	})
}

// unblockOwnerReferences sets blockOwnerDeletion=false on ref's blocking
// owner references.
func (gc *GarbageCollector) unblockOwnerReferences(ctx context.Context, ref objectReference) error {
	obj, err := gc.getObject(ctx, ref)
	if err != nil {
		return err
	}
	var changes []map[string]any
	for _, r := range obj.OwnerReferences {
		if blocking(r) {
			changes = append(changes, map[string]any{"uid": r.UID, "blockOwnerDeletion": false})
		}
	}
	if len(changes) == 0 {
		return nil
	}
	smp, err := json.Marshal(map[string]any{"metadata": map[string]any{"uid": ref.UID, "ownerReferences": changes}})
	if err != nil {
		return err
	}
	unblock := false
	return gc.patchOwnerReferences(ctx, ref, smp, func(refs []metav1.OwnerReference) []metav1.OwnerReference {
		for i := range refs {
			if blocking(refs[i]) {
				refs[i].BlockOwnerDeletion = &unblock
			}
		}
		return refs
	})
}

// orphanDependentsOf removes the owner's references from its dependents,
// then the orphan finalizer from the owner.
func (gc *GarbageCollector) orphanDependentsOf(ctx context.Context, owner *node) error {
	v, _ := gc.view(owner)
	errs := make([]error, len(v.dependents))
	var wg sync.WaitGroup
	for i, dep := range v.dependents {
		wg.Go(func() {
			err := gc.removeOwnerReferences(ctx, dep.identity, []types.UID{v.identity.UID})
			if err != nil && !apierrors.IsNotFound(err) {
				errs[i] = fmt.Errorf("orphaning %s failed: %w", dep.identity, err)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return gc.removeFinalizer(ctx, v.identity, metav1.FinalizerOrphanDependents)
}
