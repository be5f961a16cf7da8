package etcd3

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/kvstore"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

type keysBackend interface {
	storage.Backend
	Keys(ctx context.Context, limit int64) (kvstore.KeySnapshot, bool, error)
}

// Keys reads every key of a backend with its last write's revision, at
// the latest revision, and gives up above its limit: on etcd (keys only)
// and on memory alike.
func TestKeys(t *testing.T) {
	for name, newBackend := range map[string]func(t *testing.T) keysBackend{
		"etcd":   func(t *testing.T) keysBackend { return New(shared.Client(), shared.NewPrefix("keys"), nil) },
		"memory": func(t *testing.T) keysBackend { return memory.New() },
	} {
		t.Run(name, func(t *testing.T) {
			b := newBackend(t)
			t.Cleanup(func() { _ = b.Close() })
			s, err := b.ForResource(storagetest.ConfigMapResource())
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int64{}
			var last int64
			for _, n := range []string{"b", "a", "c"} {
				out := &corev1.ConfigMap{}
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n}}
				if err := s.Create(context.Background(), storagetest.ConfigMapKey("ns", n), cm, out); err != nil {
					t.Fatal(err)
				}
				rv, err := s.Versioner().ObjectResourceVersion(out)
				if err != nil {
					t.Fatal(err)
				}
				want[storagetest.ConfigMapKey("ns", n)], last = int64(rv), int64(rv)
			}
			snap, ok, err := b.Keys(context.Background(), 10)
			if err != nil || !ok {
				t.Fatalf("Keys: ok=%v err=%v", ok, err)
			}
			if snap.Revision != last {
				t.Errorf("read at revision %d, want the latest %d", snap.Revision, last)
			}
			got := map[string]int64{}
			prev := ""
			for _, k := range snap.Keys {
				if k.Key <= prev {
					t.Errorf("key %q after %q: not in key order", k.Key, prev)
				}
				prev = k.Key
				got[k.Key] = k.ModRevision
			}
			if len(got) != len(want) {
				t.Errorf("keys %v, want %v", got, want)
			}
			for k, rv := range want {
				if got[k] != rv {
					t.Errorf("key %s at revision %d, want %d", k, got[k], rv)
				}
			}
			if under := snap.Under("/configmaps"); len(under) != 3 {
				t.Errorf("Under(/configmaps) has %d keys, want 3", len(under))
			}
			if under := snap.Under("/configmap"); len(under) != 0 {
				t.Errorf("Under(/configmap) has %d keys, want none: it is another folder", len(under))
			}
			if _, ok, err := b.Keys(context.Background(), 2); err != nil || ok {
				t.Errorf("Keys over its limit: ok=%v err=%v, want not ok", ok, err)
			}
		})
	}
}
