package controlplane

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// seedFieldsJSON is the managed fields of the seeded objects as this
// binary's seed computes them: a fresh process (kapi serve on a new data
// directory, the envtest drop-in) spent 25-30 ms of CPU on
// structured-merge-diff to compute them, most of the seed. An entry is
// used only for an object whose defaulted form hashes as it did when the
// table was written (and, for an object the aggregation controller's
// apply changes, only when that apply is the one the table was written
// for and its result hashes as recorded), so a changed bootstrap object
// is computed again; TestSeedFieldsTable fails when the table is stale
// and rewrites it with -update-seed-fields.
//
//go:embed seed_fields.json
var seedFieldsJSON []byte

// seedFieldsRow is one table entry: the hash of the defaulted object
// and its managed-fields entries without their times. The create's entry
// has no manager: the loopback client's user agent names the binary, so
// the manager differs between kapi, the drop-in and a test binary. An
// object with an apply has the apply's entry too, and Result, the hash
// of the object the apply left (without managed fields).
type seedFieldsRow struct {
	Hash          string                      `json:"hash"`
	Result        string                      `json:"result,omitempty"`
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

// tableKey names a seeded object in the table, with its apply's manager
// and the hash of its body when it has one.
func (k seedFieldsKey) tableKey() (string, bool) {
	key := fmt.Sprintf("%s|%s|%s/%s", k.gvk.GroupVersion(), k.gvk.Kind, k.namespace, k.name)
	if k.apply != "" || k.applyManager != "" {
		h := fnv.New64a()
		h.Write([]byte(k.apply))
		key += fmt.Sprintf("|%s|%x", k.applyManager, h.Sum64())
	}
	return key, true
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
// stamped now, if the table has in as it is; with key's apply made, if
// it has one and the table has its result.
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
	var out runtime.Object
	switch {
	case key.apply == "":
		out = in.DeepCopyObject()
	case row.Result == "":
		return nil, false
	default:
		if out, ok = applyTopLevelFields(in, key.apply); !ok {
			return nil, false
		}
		if h, ok := objectHash(out); !ok || h != row.Result {
			return nil, false
		}
	}
	m, err := meta.Accessor(out)
	if err != nil {
		return nil, false
	}
	entries := make([]metav1.ManagedFieldsEntry, len(row.ManagedFields))
	for i, e := range row.ManagedFields {
		entries[i] = *e.DeepCopy()
		if entries[i].Manager == "" {
			entries[i].Manager = key.manager
		}
	}
	m.SetManagedFields(entries)
	return stampManagedFields(out), true
}

// applyTopLevelFields is in with the apply body's fields other than
// metadata put in place of its own, which is what a forced apply of
// atomic fields does (the result carries the body's apiVersion and kind,
// as the field manager's does); the caller checks the result against the
// table's, which structured-merge-diff computed.
func applyTopLevelFields(in runtime.Object, apply string) (runtime.Object, bool) {
	var body map[string]any
	if err := json.Unmarshal([]byte(apply), &body); err != nil {
		return nil, false
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(in)
	if err != nil {
		return nil, false
	}
	for k, v := range body {
		if k != "metadata" {
			u[k] = v
		}
	}
	out := reflect.New(reflect.TypeOf(in).Elem()).Interface().(runtime.Object)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, out); err != nil {
		return nil, false
	}
	return out, true
}
