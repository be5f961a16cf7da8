package controlplane

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// seedFieldsJSON is the managed fields of the seeded objects that only
// get their hook's create (no apply), as this binary's seed computes
// them: a fresh process (kapi serve on a new data directory, the
// envtest drop-in) spent 25-30 ms of CPU on structured-merge-diff to
// compute them, most of the seed. An entry is used only for an object
// whose defaulted form hashes as it did when the table was written, so
// a changed bootstrap object is computed again; TestSeedFieldsTable
// fails when the table is stale and rewrites it with
// -update-seed-fields.
//
//go:embed seed_fields.json
var seedFieldsJSON []byte

// seedFieldsRow is one table entry: the hash of the defaulted object
// and its managed-fields entry, the create's, without its time and
// manager (the loopback client's user agent names the binary, so the
// manager differs between kapi, the drop-in and a test binary).
type seedFieldsRow struct {
	Hash          string                      `json:"hash"`
	ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields"`
}

// seedFieldsTableOff makes every seed compute (TestSeedFieldsTable).
var seedFieldsTableOff atomic.Bool

var seedFieldsTable = sync.OnceValue(func() map[string]seedFieldsRow {
	rows := map[string]seedFieldsRow{}
	if err := json.Unmarshal(seedFieldsJSON, &rows); err != nil {
		return nil // computed, as without a table
	}
	return rows
})

// tableKey names a seeded object in the table; objects with an apply
// have none.
func (k seedFieldsKey) tableKey() (string, bool) {
	if k.apply != "" || k.applyManager != "" {
		return "", false
	}
	return fmt.Sprintf("%s|%s|%s/%s", k.gvk.GroupVersion(), k.gvk.Kind, k.namespace, k.name), true
}

// objectHash fingerprints a defaulted object by its protobuf encoding,
// which is deterministic for the built-in kinds (map keys are sorted).
func objectHash(obj runtime.Object) (string, bool) {
	m, ok := obj.(interface{ Marshal() ([]byte, error) })
	if !ok {
		return "", false
	}
	data, err := m.Marshal()
	if err != nil {
		return "", false
	}
	h := fnv.New64a()
	h.Write(data)
	return strconv.FormatUint(h.Sum64(), 16), true
}

// fromSeedFieldsTable returns in with the table's managed fields for key,
// stamped now, if the table has in as it is.
func fromSeedFieldsTable(key seedFieldsKey, in runtime.Object) (runtime.Object, bool) {
	tk, ok := key.tableKey()
	if !ok || seedFieldsTableOff.Load() {
		return nil, false
	}
	row, ok := seedFieldsTable()[tk]
	if !ok {
		return nil, false
	}
	if h, ok := objectHash(in); !ok || h != row.Hash {
		return nil, false
	}
	out := in.DeepCopyObject()
	m, err := meta.Accessor(out)
	if err != nil {
		return nil, false
	}
	entries := make([]metav1.ManagedFieldsEntry, len(row.ManagedFields))
	for i, e := range row.ManagedFields {
		entries[i] = *e.DeepCopy()
		entries[i].Manager = key.manager
	}
	m.SetManagedFields(entries)
	return stampManagedFields(out), true
}
