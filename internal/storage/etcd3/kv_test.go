package etcd3

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestOpPutOwnsItsValue: the Op keeps the value as it was when built,
// whatever happens to the caller's bytes after.
func TestOpPutOwnsItsValue(t *testing.T) {
	value := []byte("k8s\x00value")
	op := opPut("/registry/configmaps/a/b", value)
	copy(value, "XXXXXXXXXXX")
	if got := string(op.ValueBytes()); got != "k8s\x00value" {
		t.Errorf("op value = %q after the caller's bytes changed, want %q", got, "k8s\x00value")
	}
	if got := string(opPut("k", nil).ValueBytes()); got != "" {
		t.Errorf("empty value = %q", got)
	}
}

// TestTxnAnswers: a write's transaction, sent as etcd's own request,
// answers as the client's Txn did: the revision of a write that happened,
// the current value when the expected revision does not match, nothing
// for a missing key, the caller's context error, and etcd's own error
// (translated) for a value over its request limit.
func TestTxnAnswers(t *testing.T) {
	kv := &etcdKV{client: shared.Client(), prefix: shared.NewPrefix("txn")}
	ctx := context.Background()
	rev, cur, ok, err := kv.Put(ctx, "/a", []byte("one"), 0)
	if err != nil || !ok || cur != nil || rev == 0 {
		t.Fatalf("create: rev %d, cur %v, ok %v, err %v", rev, cur, ok, err)
	}
	_, cur, ok, err = kv.Put(ctx, "/a", []byte("two"), 0)
	if err != nil || ok || cur == nil || string(cur.Value) != "one" || cur.Key != "/a" || cur.ModRevision != rev {
		t.Fatalf("create of an existing key: cur %+v, ok %v, err %v; want the current value at %d", cur, ok, err, rev)
	}
	rev2, _, ok, err := kv.Put(ctx, "/a", []byte("two"), rev)
	if err != nil || !ok || rev2 <= rev {
		t.Fatalf("update: rev %d, ok %v, err %v", rev2, ok, err)
	}
	if _, _, ok, err := kv.Delete(ctx, "/missing", 0); err != nil || ok {
		t.Fatalf("delete of a missing key: ok %v, err %v", ok, err)
	}
	if _, _, ok, err := kv.Delete(ctx, "/a", rev2); err != nil || !ok {
		t.Fatalf("delete: ok %v, err %v", ok, err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, _, err := kv.Put(canceled, "/b", []byte("x"), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("put with a canceled context: %v, want context.Canceled", err)
	}
	_, _, _, err = kv.Put(ctx, "/big", make([]byte, 1800<<10), 0)
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("put over etcd's request limit: %v, want etcd's request-too-large error", err)
	}
}

// BenchmarkPutCreate1KiB is a create's write: a 1 KiB value at a new key.
func BenchmarkPutCreate1KiB(b *testing.B) {
	kv := &etcdKV{client: shared.Client(), prefix: shared.NewPrefix("bench")}
	value := make([]byte, 1024)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, _, ok, err := kv.Put(ctx, fmt.Sprintf("/k%d", i), value, 0); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
