package scale

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// replicasPath is where every parent kind keeps its desired replicas, in
// every version.
var replicasPath = fieldpath.MakePathOrDie("spec", "replicas")

// scaleHandler moves managed fields between a parent and its Scale, as
// upstream: a manager of the parent's spec.replicas manages the Scale's,
// and a manager writing the Scale's replicas takes the parent's.
func (r *REST) scaleHandler(parent runtime.Object) (*managedfields.ScaleHandler, bool) {
	m, err := meta.Accessor(parent)
	if err != nil {
		return nil, false
	}
	kinds, _, err := r.store.CreateStrategy.ObjectKinds(parent)
	if err != nil || len(kinds) == 0 {
		return nil, false
	}
	gv := kinds[0].GroupVersion()
	// Entries of any version the parent was written through map too: the
	// handler drops entries of versions it has no path for.
	mappings := managedfields.ResourcePathMappings{gv.String(): replicasPath}
	for _, e := range m.GetManagedFields() {
		mappings[e.APIVersion] = replicasPath
	}
	return managedfields.NewScaleHandler(m.GetManagedFields(), gv, mappings), true
}

// scaleManagedFields are the parent's entries owning its replicas, as
// Scale entries; none when they do not decode (tracking never fails a
// read).
func (r *REST) scaleManagedFields(parent runtime.Object) []metav1.ManagedFieldsEntry {
	h, ok := r.scaleHandler(parent)
	if !ok {
		return nil
	}
	entries, err := h.ToSubresource()
	if err != nil {
		return nil
	}
	return entries
}

// setParentManagedFields merges the entries of a written Scale into the
// parent's; the parent keeps its own when they do not decode.
func (r *REST) setParentManagedFields(parent runtime.Object, scaleEntries []metav1.ManagedFieldsEntry) {
	h, ok := r.scaleHandler(parent)
	if !ok {
		return
	}
	entries, err := h.ToParent(scaleEntries)
	if err != nil {
		return
	}
	m, _ := meta.Accessor(parent)
	m.SetManagedFields(entries)
}
