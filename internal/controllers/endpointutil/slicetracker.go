package endpointutil

import (
	"sync"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
)

// deletionExpected marks a slice the controller deleted itself.
const deletionExpected = -1

// SliceTracker remembers the generation of every EndpointSlice a
// controller wrote, per Service, so that it can tell its own writes
// coming back through the informer (no sync needed) from others' changes,
// and refuse to reconcile from a cache that has not yet seen its writes
// (which would create duplicate slices).
type SliceTracker struct {
	mu          sync.Mutex
	generations map[types.NamespacedName]map[types.UID]int64
}

// NewSliceTracker returns an empty tracker.
func NewSliceTracker() *SliceTracker {
	return &SliceTracker{generations: map[types.NamespacedName]map[types.UID]int64{}}
}

func serviceOf(slice *discoveryv1.EndpointSlice) types.NamespacedName {
	return types.NamespacedName{Namespace: slice.Namespace, Name: slice.Labels[discoveryv1.LabelServiceName]}
}

// Has says whether the slice is tracked.
func (t *SliceTracker) Has(slice *discoveryv1.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.generations[serviceOf(slice)][slice.UID]
	return ok
}

// ShouldSync: the slice is not one the controller wrote at this
// generation.
func (t *SliceTracker) ShouldSync(slice *discoveryv1.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	g, ok := t.generations[serviceOf(slice)][slice.UID]
	return !ok || slice.Generation > g
}

// Stale says whether slices (a cache's view of the Service's slices)
// miss a write of the controller: an older generation, a slice it
// deleted, or a slice it created that is not there yet.
func (t *SliceTracker) Stale(namespace, name string, slices []*discoveryv1.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	gens, ok := t.generations[types.NamespacedName{Namespace: namespace, Name: name}]
	if !ok {
		return false
	}
	seen := make(map[types.UID]bool, len(slices))
	for _, s := range slices {
		seen[s.UID] = true
		if g, ok := gens[s.UID]; ok && (g == deletionExpected || g > s.Generation) {
			return true
		}
	}
	for uid, g := range gens {
		if g != deletionExpected && !seen[uid] {
			return true
		}
	}
	return false
}

// Update records a slice as written.
func (t *SliceTracker) Update(slice *discoveryv1.EndpointSlice) {
	t.set(slice, slice.Generation)
}

// ExpectDeletion records a slice as deleted by the controller.
func (t *SliceTracker) ExpectDeletion(slice *discoveryv1.EndpointSlice) {
	t.set(slice, deletionExpected)
}

func (t *SliceTracker) set(slice *discoveryv1.EndpointSlice, g int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := serviceOf(slice)
	if t.generations[key] == nil {
		t.generations[key] = map[types.UID]int64{}
	}
	t.generations[key][slice.UID] = g
}

// HandleDeletion forgets a deleted slice and says whether the controller
// expected the deletion (if not, someone else deleted it: resync).
func (t *SliceTracker) HandleDeletion(slice *discoveryv1.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	gens, ok := t.generations[serviceOf(slice)]
	if !ok {
		return true
	}
	g, ok := gens[slice.UID]
	delete(gens, slice.UID)
	return !ok || g == deletionExpected
}

// DeleteService forgets a Service's slices.
func (t *SliceTracker) DeleteService(namespace, name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.generations, types.NamespacedName{Namespace: namespace, Name: name})
}
