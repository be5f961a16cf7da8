package generic

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// The garbage collector learns what a deletion asks of the dependents from
// two finalizers the store sets on the deleted object: "orphan" (keep the
// dependents, drop their owner reference) and "foregroundDeletion" (delete
// the dependents first). The deciding order is kube-apiserver's: the
// request's options, then a finalizer already on the object, then the
// resource's default policy.

// defaultGCPolicy is the resource's policy when the request names none.
func (s *Store) defaultGCPolicy(ctx context.Context) rest.GarbageCollectionPolicy {
	if gc, ok := s.DeleteStrategy.(rest.GarbageCollectionDeleteStrategy); ok {
		return gc.DefaultGarbageCollectionPolicy(ctx)
	}
	return rest.DeleteDependents
}

// shouldOrphan reports whether the object should carry the orphan
// finalizer after this delete.
func shouldOrphan(policy rest.GarbageCollectionPolicy, finalizers []string, options *metav1.DeleteOptions) bool {
	if policy == rest.Unsupported {
		return false
	}
	//nolint:staticcheck // orphanDependents is deprecated but still honoured.
	if options.OrphanDependents != nil {
		return *options.OrphanDependents
	}
	if p := options.PropagationPolicy; p != nil {
		switch *p {
		case metav1.DeletePropagationOrphan:
			return true
		case metav1.DeletePropagationBackground, metav1.DeletePropagationForeground:
			return false
		}
	}
	if decided, orphan := gcFinalizerOnObject(finalizers); decided {
		return orphan
	}
	return policy == rest.OrphanDependents
}

// shouldDeleteInForeground reports whether the object should carry the
// foregroundDeletion finalizer after this delete.
func shouldDeleteInForeground(policy rest.GarbageCollectionPolicy, finalizers []string, options *metav1.DeleteOptions) bool {
	if policy == rest.Unsupported {
		return false
	}
	//nolint:staticcheck // orphanDependents is deprecated but still honoured.
	if options.OrphanDependents != nil {
		return false
	}
	if p := options.PropagationPolicy; p != nil {
		switch *p {
		case metav1.DeletePropagationForeground:
			return true
		case metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan:
			return false
		}
	}
	if decided, orphan := gcFinalizerOnObject(finalizers); decided {
		return !orphan
	}
	return false
}

// gcFinalizerOnObject reads the first garbage collection finalizer a
// client put on the object itself.
func gcFinalizerOnObject(finalizers []string) (decided, orphan bool) {
	for _, f := range finalizers {
		switch f {
		case metav1.FinalizerOrphanDependents:
			return true, true
		case metav1.FinalizerDeleteDependents:
			return true, false
		}
	}
	return false, false
}

// gcFinalizers returns the finalizers the object should have after this
// delete, and whether they differ from the ones it has (as sets). Other
// finalizers keep their order; the garbage collection ones go last.
func (s *Store) gcFinalizers(ctx context.Context, finalizers []string, options *metav1.DeleteOptions) (bool, []string) {
	policy := s.defaultGCPolicy(ctx)
	orphan := shouldOrphan(policy, finalizers, options)
	foreground := shouldDeleteInForeground(policy, finalizers, options)
	out := make([]string, 0, len(finalizers)+1)
	for _, f := range finalizers {
		if f != metav1.FinalizerOrphanDependents && f != metav1.FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, metav1.FinalizerDeleteDependents)
	}
	if sameSet(finalizers, out) {
		return false, finalizers
	}
	return true, out
}

func sameSet(a, b []string) bool {
	for _, f := range a {
		if !slices.Contains(b, f) {
			return false
		}
	}
	for _, f := range b {
		if !slices.Contains(a, f) {
			return false
		}
	}
	return true
}
