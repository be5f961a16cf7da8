package generic_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
)

// gcStrategy is the ConfigMap strategy with a default garbage collection
// policy, as replication controllers, jobs and events have upstream.
type gcStrategy struct {
	resttest.ConfigMapStrategy
	policy rest.GarbageCollectionPolicy
}

func (s gcStrategy) DefaultGarbageCollectionPolicy(_ context.Context) rest.GarbageCollectionPolicy {
	return s.policy
}

func policyPtr(p metav1.DeletionPropagation) *metav1.DeletionPropagation { return &p }

func TestDeletePropagation(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name           string
		policy         rest.GarbageCollectionPolicy // the strategy's default, "" for none
		finalizers     []string                     // on the object before the delete
		options        *metav1.DeleteOptions
		wantFinalizers []string // nil: the object is gone
	}{
		{name: "orphan", options: &metav1.DeleteOptions{PropagationPolicy: policyPtr(metav1.DeletePropagationOrphan)}, wantFinalizers: []string{metav1.FinalizerOrphanDependents}},
		{name: "foreground", options: &metav1.DeleteOptions{PropagationPolicy: policyPtr(metav1.DeletePropagationForeground)}, wantFinalizers: []string{metav1.FinalizerDeleteDependents}},
		{name: "background", options: &metav1.DeleteOptions{PropagationPolicy: policyPtr(metav1.DeletePropagationBackground)}},
		{name: "no policy", options: &metav1.DeleteOptions{}},
		{name: "orphanDependents true", options: &metav1.DeleteOptions{OrphanDependents: &yes}, wantFinalizers: []string{metav1.FinalizerOrphanDependents}},
		{name: "orphanDependents false", options: &metav1.DeleteOptions{OrphanDependents: &no}},
		{
			name: "foreground keeps other finalizers", finalizers: []string{"example.com/a"},
			options:        &metav1.DeleteOptions{PropagationPolicy: policyPtr(metav1.DeletePropagationForeground)},
			wantFinalizers: []string{"example.com/a", metav1.FinalizerDeleteDependents},
		},
		{
			name: "background drops a gc finalizer set by the client", finalizers: []string{"example.com/a", metav1.FinalizerOrphanDependents},
			options:        &metav1.DeleteOptions{PropagationPolicy: policyPtr(metav1.DeletePropagationBackground)},
			wantFinalizers: []string{"example.com/a"},
		},
		{
			name: "a gc finalizer set by the client decides without options", finalizers: []string{metav1.FinalizerDeleteDependents},
			options: &metav1.DeleteOptions{}, wantFinalizers: []string{metav1.FinalizerDeleteDependents},
		},
		{name: "default orphan", policy: rest.OrphanDependents, options: &metav1.DeleteOptions{}, wantFinalizers: []string{metav1.FinalizerOrphanDependents}},
		{name: "default orphan, nil options", policy: rest.OrphanDependents, wantFinalizers: []string{metav1.FinalizerOrphanDependents}},
		{name: "default orphan, background", policy: rest.OrphanDependents, options: &metav1.DeleteOptions{PropagationPolicy: policyPtr(metav1.DeletePropagationBackground)}},
		{name: "default delete dependents", policy: rest.DeleteDependents, options: &metav1.DeleteOptions{}},
		{name: "unsupported ignores orphan", policy: rest.Unsupported, options: &metav1.DeleteOptions{PropagationPolicy: policyPtr(metav1.DeletePropagationOrphan)}},
		{name: "unsupported ignores foreground", policy: rest.Unsupported, options: &metav1.DeleteOptions{PropagationPolicy: policyPtr(metav1.DeletePropagationForeground)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, func(s *generic.Store, strategy *resttest.ConfigMapStrategy) {
				if tt.policy != "" {
					s.CreateStrategy, s.UpdateStrategy = *strategy, *strategy
					s.DeleteStrategy = gcStrategy{ConfigMapStrategy: *strategy, policy: tt.policy}
				}
			})
			cm := newConfigMap("ns", "foo", nil)
			cm.Finalizers = tt.finalizers
			stored := mustCreate(t, s, cm)

			out, deleted, err := s.Delete(nsContext("ns"), "foo", nil, tt.options)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantFinalizers == nil {
				if !deleted {
					t.Fatalf("deleted = false (%v), want the object gone", out)
				}
				wantNotFound(t, s, "ns", "foo")
				return
			}
			if deleted {
				t.Fatal("deleted = true, want the object kept")
			}
			got := mustGet(t, s, "ns", "foo")
			wantMarked(t, got, tt.wantFinalizers)
			if returned := out.(*corev1.ConfigMap); returned.ResourceVersion != got.ResourceVersion || returned.ResourceVersion == stored.ResourceVersion {
				t.Errorf("returned resourceVersion %s, stored %s (before %s)", returned.ResourceVersion, got.ResourceVersion, stored.ResourceVersion)
			}
		})
	}
}

// wantMarked checks the deletion mark a garbage collector waits on.
func wantMarked(t *testing.T, got *corev1.ConfigMap, finalizers []string) {
	t.Helper()
	if !slices.Equal(got.Finalizers, finalizers) {
		t.Errorf("finalizers = %q, want %q", got.Finalizers, finalizers)
	}
	if got.DeletionTimestamp == nil || time.Since(got.DeletionTimestamp.Time) > time.Minute {
		t.Errorf("deletionTimestamp = %v, want about now", got.DeletionTimestamp)
	}
	if g := got.DeletionGracePeriodSeconds; g == nil || *g != 0 {
		t.Errorf("deletionGracePeriodSeconds = %v, want 0", g)
	}
}

// TestDeletePropagationChanges deletes an object again with another policy:
// the garbage collection finalizers follow the latest request and the
// deletion timestamp stays the first one.
func TestDeletePropagationChanges(t *testing.T) {
	s := newStore(t, nil)
	mustCreate(t, s, newConfigMap("ns", "foo", nil))
	del := func(p metav1.DeletionPropagation) (bool, error) {
		_, deleted, err := s.Delete(nsContext("ns"), "foo", nil, &metav1.DeleteOptions{PropagationPolicy: &p})
		return deleted, err
	}
	if deleted, err := del(metav1.DeletePropagationOrphan); err != nil || deleted {
		t.Fatalf("orphan: deleted=%v err=%v", deleted, err)
	}
	first := mustGet(t, s, "ns", "foo")
	wantMarked(t, first, []string{metav1.FinalizerOrphanDependents})

	if deleted, err := del(metav1.DeletePropagationForeground); err != nil || deleted {
		t.Fatalf("foreground: deleted=%v err=%v", deleted, err)
	}
	second := mustGet(t, s, "ns", "foo")
	wantMarked(t, second, []string{metav1.FinalizerDeleteDependents})
	if !second.DeletionTimestamp.Equal(first.DeletionTimestamp) {
		t.Errorf("deletionTimestamp moved from %v to %v", first.DeletionTimestamp, second.DeletionTimestamp)
	}

	// Repeating the same request writes nothing.
	if deleted, err := del(metav1.DeletePropagationForeground); err != nil || deleted {
		t.Fatalf("foreground again: deleted=%v err=%v", deleted, err)
	}
	if again := mustGet(t, s, "ns", "foo"); again.ResourceVersion != second.ResourceVersion {
		t.Errorf("a repeated delete wrote the object: rv %s → %s", second.ResourceVersion, again.ResourceVersion)
	}

	// Background takes the last finalizer away, so the object goes.
	if deleted, err := del(metav1.DeletePropagationBackground); err != nil || !deleted {
		t.Fatalf("background: deleted=%v err=%v, want gone", deleted, err)
	}
	wantNotFound(t, s, "ns", "foo")
}

// TestDeletePropagationFinalizerRemoved: whoever finishes the job (a
// garbage collector) removes the finalizer, and the object goes.
func TestDeletePropagationFinalizerRemoved(t *testing.T) {
	s := newStore(t, nil)
	mustCreate(t, s, newConfigMap("ns", "foo", nil))
	out, _, err := s.Delete(nsContext("ns"), "foo", nil, &metav1.DeleteOptions{PropagationPolicy: policyPtr(metav1.DeletePropagationForeground)})
	marked, ok := out.(*corev1.ConfigMap)
	if err != nil || !ok {
		t.Fatalf("delete: %v, %T; want the marked object", err, out)
	}
	withFinalizers(t, s, marked, nil, nil)
	wantNotFound(t, s, "ns", "foo")
}

func TestDeletePropagationDryRun(t *testing.T) {
	s := newStore(t, nil)
	stored := mustCreate(t, s, newConfigMap("ns", "foo", nil))
	out, deleted, err := s.Delete(nsContext("ns"), "foo", nil, &metav1.DeleteOptions{
		PropagationPolicy: policyPtr(metav1.DeletePropagationOrphan), DryRun: []string{metav1.DryRunAll},
	})
	if err != nil || deleted {
		t.Fatalf("dry run: deleted=%v err=%v", deleted, err)
	}
	wantMarked(t, out.(*corev1.ConfigMap), []string{metav1.FinalizerOrphanDependents})
	if now := mustGet(t, s, "ns", "foo"); now.ResourceVersion != stored.ResourceVersion || len(now.Finalizers) != 0 || now.DeletionTimestamp != nil {
		t.Errorf("dry run changed the object: %v", now.ObjectMeta)
	}
}

func TestDeleteCollectionPropagation(t *testing.T) {
	s := newStore(t, nil)
	for _, name := range []string{"a", "b"} {
		mustCreate(t, s, newConfigMap("ns", name, nil))
	}
	if _, err := s.DeleteCollection(nsContext("ns"), nil,
		&metav1.DeleteOptions{PropagationPolicy: policyPtr(metav1.DeletePropagationForeground)},
		&metainternalversion.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		wantMarked(t, mustGet(t, s, "ns", name), []string{metav1.FinalizerDeleteDependents})
	}
}

func TestDeleteInvalidPropagation(t *testing.T) {
	s := newStore(t, nil)
	mustCreate(t, s, newConfigMap("ns", "foo", nil))
	_, _, err := s.Delete(nsContext("ns"), "foo", nil, &metav1.DeleteOptions{PropagationPolicy: policyPtr("Sideways")})
	wantStatus(t, err, 422, `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"`)
	mustGet(t, s, "ns", "foo")
}
