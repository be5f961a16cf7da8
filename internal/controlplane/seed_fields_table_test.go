package controlplane

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

var updateSeedFields = flag.Bool("update-seed-fields", false, "rewrite seed_fields.json from a computed seed")

// TestSeedFieldsTable checks seed_fields.json against a seed computed in
// full: every object is in it, with its hash and the managed fields its
// create (and apply, with the hash of its result) records. A change to a bootstrap object, its
// defaults or its kind's schema makes the table stale (the seed then
// computes that object, slower but right). Rewrite it with
//
//	go test ./internal/controlplane -run TestSeedFieldsTable -update-seed-fields
func TestSeedFieldsTable(t *testing.T) {
	seedFieldsTableOff.Store(true)
	defer seedFieldsTableOff.Store(false)
	seededFields.Clear()
	startServer(t, "memory")

	// The table may only hold objects whose create adds managed fields
	// and changes nothing else, and whose apply the table can redo.
	applies := 0
	seededFields.Range(func(k, v any) bool {
		key, e := k.(seedFieldsKey), v.(*seedFieldsEntry)
		if _, ok := key.tableKey(); !ok {
			return true
		}
		if key.apply != "" {
			applies++
			return true
		}
		out := e.out.DeepCopyObject()
		m, err := meta.Accessor(out)
		if err != nil {
			t.Fatal(err)
		}
		m.SetManagedFields(nil)
		if !equality.Semantic.DeepEqual(out, e.in) {
			t.Errorf("%v: the create changed more than the managed fields", key)
		}
		return true
	})
	if applies < 3 {
		t.Errorf("%d seeded objects with an apply, want admin, edit and view's at least", applies)
	}
	rows, err := seedFieldsTableRows()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 100 {
		t.Fatalf("%d seeded objects, want the bootstrap policy's (over 100)", len(rows))
	}
	if *updateSeedFields {
		if err := os.WriteFile("seed_fields.json", seedFieldsFile(t, rows), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	var want map[string]seedFieldsRow
	if err := json.Unmarshal(seedFieldsJSON, &want); err != nil {
		t.Fatal(err)
	}
	stale := 0
	for k, row := range rows {
		if w, ok := want[k]; !ok || !sameRow(t, w, row) {
			stale++
			if stale <= 5 {
				t.Errorf("seed_fields.json is stale for %s", k)
			}
		}
	}
	for k := range want {
		if _, ok := rows[k]; !ok {
			stale++
			t.Errorf("seed_fields.json has %s, which the seed does not write", k)
		}
	}
	if stale > 0 {
		t.Fatalf("%d stale entries; rewrite with: go test ./internal/controlplane -run TestSeedFieldsTable -update-seed-fields", stale)
	}

	// What the seed takes from the table is what it computed.
	seedFieldsTableOff.Store(false)
	seededFields.Range(func(k, v any) bool {
		key, e := k.(seedFieldsKey), v.(*seedFieldsEntry)
		if _, ok := key.tableKey(); !ok {
			return true
		}
		got, ok := fromSeedFieldsTable(key, e.in)
		if !ok {
			t.Errorf("%v: not taken from the table", key)
			return true
		}
		if !equality.Semantic.DeepEqual(withoutFieldTimes(got), withoutFieldTimes(e.out)) {
			t.Errorf("%v: the table's object differs from the computed one: %s", key.name, cmp.Diff(withoutFieldTimes(e.out), withoutFieldTimes(got)))
		}
		return true
	})
}

func withoutFieldTimes(obj runtime.Object) runtime.Object {
	obj = obj.DeepCopyObject()
	m, _ := meta.Accessor(obj)
	entries := m.GetManagedFields()
	for i := range entries {
		entries[i].Time = nil
	}
	m.SetManagedFields(entries)
	return obj
}

// seedFieldsFile is rows as JSON, one compact row per line in key order:
// the managed fields' raw JSON stays byte for byte as computed.
func seedFieldsFile(t *testing.T, rows map[string]seedFieldsRow) []byte {
	keys := slices.Sorted(maps.Keys(rows))
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range keys {
		key, _ := json.Marshal(k)
		row, err := json.Marshal(rows[k])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(key)
		b.WriteString(": ")
		b.Write(row)
		if i < len(keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func sameRow(t *testing.T, a, b seedFieldsRow) bool {
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ja, jb)
}

// seedFieldsTableRows is the table for what the process seeded: every
// remembered object, with the managed fields computed for it.
func seedFieldsTableRows() (map[string]seedFieldsRow, error) {
	rows := map[string]seedFieldsRow{}
	var err error
	seededFields.Range(func(k, v any) bool {
		key, e := k.(seedFieldsKey), v.(*seedFieldsEntry)
		tk, ok := key.tableKey()
		if !ok {
			return true
		}
		h, ok := objectHash(e.in)
		if !ok {
			err = fmt.Errorf("%s has no protobuf encoding", tk)
			return false
		}
		out := e.out.DeepCopyObject()
		m, aerr := meta.Accessor(out)
		if aerr != nil {
			err = aerr
			return false
		}
		entries := make([]metav1.ManagedFieldsEntry, 0, len(m.GetManagedFields()))
		for _, me := range m.GetManagedFields() {
			switch {
			case me.Manager == key.manager:
				me.Manager = ""
			case key.apply != "" && me.Manager == key.applyManager:
			default:
				err = fmt.Errorf("%s: managed fields of %q, want only the create's by %q and its apply's", tk, me.Manager, key.manager)
				return false
			}
			me.Time = nil
			entries = append(entries, me)
		}
		row := seedFieldsRow{Hash: h, ManagedFields: entries}
		if key.apply != "" {
			m.SetManagedFields(nil)
			if row.Result, ok = objectHash(out); !ok {
				err = fmt.Errorf("%s has no protobuf encoding", tk)
				return false
			}
		}
		rows[tk] = row
		return true
	})
	return rows, err
}
