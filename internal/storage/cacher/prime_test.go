package cacher

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/kvstore"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// keyedSignalBackend is a signalBackend whose inner memory backend can
// read all its keys, as the etcd and memory backends can.
type keyedSignalBackend struct {
	signalBackend
	inner *memory.Backend
}

func (b keyedSignalBackend) Keys(ctx context.Context, limit int64) (kvstore.KeySnapshot, bool, error) {
	return b.inner.Keys(ctx, limit)
}

func primeConfigMap(ns, name, data string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"k": data}}
}

// A cache made between DeferInitialSync and WaitInitialSync starts from the
// objects created through it, without listing, when its folder holds
// exactly those; anything else written meanwhile makes it list, so it
// always starts from what storage holds.
func TestFirstListFromCreates(t *testing.T) {
	for _, tc := range []struct {
		name string
		// before runs between DeferInitialSync and WaitInitialSync, with
		// the cache and the inner backend's own storage of its folder.
		before     func(t *testing.T, cache, raw storage.Interface)
		wantList   bool
		wantNames  []string
		noKeyLists bool // the inner backend cannot read its keys
	}{
		{name: "nothing written: empty without a list", before: func(*testing.T, storage.Interface, storage.Interface) {}},
		{name: "created through the cache", wantNames: []string{"a", "b"}, before: func(t *testing.T, cache, _ storage.Interface) {
			mustCreate(t, cache, primeConfigMap("ns", "b", "1"))
			mustCreate(t, cache, primeConfigMap("ns", "a", "2"))
		}},
		{name: "written around the cache", wantList: true, wantNames: []string{"a", "b"}, before: func(t *testing.T, cache, raw storage.Interface) {
			mustCreate(t, cache, primeConfigMap("ns", "a", "1"))
			mustCreate(t, raw, primeConfigMap("ns", "b", "2"))
		}},
		{name: "updated through the cache", wantList: true, wantNames: []string{"a"}, before: func(t *testing.T, cache, _ storage.Interface) {
			mustCreate(t, cache, primeConfigMap("ns", "a", "1"))
			out := &corev1.ConfigMap{}
			err := cache.GuaranteedUpdate(context.Background(), storagetest.ConfigMapKey("ns", "a"), out, false, nil,
				func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
					cm := in.(*corev1.ConfigMap).DeepCopy()
					cm.Data["k"] = "changed"
					return cm, nil
				})
			if err != nil {
				t.Fatal(err)
			}
		}},
		{name: "inner backend without a key read", noKeyLists: true, wantList: true, wantNames: []string{"a"}, before: func(t *testing.T, cache, _ storage.Interface) {
			mustCreate(t, cache, primeConfigMap("ns", "a", "1"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := memory.New()
			t.Cleanup(func() { _ = inner.Close() })
			listed := make(chan string, 10)
			var wrapped storage.Backend = keyedSignalBackend{signalBackend{Backend: inner, listed: listed}, inner}
			if tc.noKeyLists {
				wrapped = signalBackend{Backend: inner, listed: listed}
			}
			b := cachedBackend(t, wrapped)
			b.DeferInitialSync()
			cache := <-forResourceAsync(t, b, "/configmaps")
			raw, err := inner.ForResource(storagetest.ConfigMapResource())
			if err != nil {
				t.Fatal(err)
			}
			tc.before(t, cache, raw)
			b.WaitInitialSync(t.Context())
			if !cacheReady(cache) {
				t.Fatal("WaitInitialSync returned before the cache was ready")
			}
			select {
			case key := <-listed:
				if !tc.wantList {
					t.Errorf("the cache listed %s; want it started from its creates", key)
				}
			default:
				if tc.wantList {
					t.Error("the cache did not list; want a list")
				}
			}
			// What the cache serves is what storage holds, object for object.
			fromCache, fromStorage := &corev1.ConfigMapList{}, &corev1.ConfigMapList{}
			opts := storage.ListOptions{Recursive: true, Predicate: storage.Everything, ResourceVersion: "0"}
			if err := cache.GetList(context.Background(), "/configmaps", opts, fromCache); err != nil {
				t.Fatal(err)
			}
			opts.ResourceVersion = ""
			if err := raw.GetList(context.Background(), "/configmaps", opts, fromStorage); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, cm := range fromCache.Items {
				names = append(names, cm.Name)
			}
			if !equality.Semantic.DeepEqual(names, tc.wantNames) {
				t.Errorf("cache holds %v, want %v", names, tc.wantNames)
			}
			if !equality.Semantic.DeepEqual(fromCache.Items, fromStorage.Items) {
				t.Errorf("cache items differ from storage's:\ncache:   %+v\nstorage: %+v", fromCache.Items, fromStorage.Items)
			}
			// Later writes reach the cache through its watch.
			mustCreate(t, raw, primeConfigMap("ns", "z", "late"))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			consistent := &corev1.ConfigMapList{}
			opts.ResourceVersion = ""
			if err := cache.GetList(ctx, "/configmaps", opts, consistent); err != nil {
				t.Fatal(err)
			}
			if n := len(consistent.Items); n != len(tc.wantNames)+1 {
				t.Errorf("after a later create the cache holds %d objects, want %d", n, len(tc.wantNames)+1)
			}
		})
	}
}

// The record does not keep the caller's object: changing what Create
// returned does not change the cache.
func TestFirstListFromCreatesCopies(t *testing.T) {
	inner := memory.New()
	t.Cleanup(func() { _ = inner.Close() })
	b := cachedBackend(t, keyedSignalBackend{signalBackend{Backend: inner, listed: make(chan string, 10)}, inner})
	b.DeferInitialSync()
	cache := <-forResourceAsync(t, b, "/configmaps")
	out := &corev1.ConfigMap{}
	if err := cache.Create(context.Background(), storagetest.ConfigMapKey("ns", "a"), primeConfigMap("ns", "a", "1"), out); err != nil {
		t.Fatal(err)
	}
	out.Data["k"] = "scribbled"
	b.WaitInitialSync(t.Context())
	got := &corev1.ConfigMap{}
	if err := cache.Get(context.Background(), storagetest.ConfigMapKey("ns", "a"), storage.GetOptions{ResourceVersion: "0"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Data["k"] != "1" {
		t.Errorf("cache holds %q, want the created %q", got.Data["k"], "1")
	}
}

func mustCreate(t *testing.T, s storage.Interface, cm *corev1.ConfigMap) {
	t.Helper()
	if err := s.Create(context.Background(), storagetest.ConfigMapKey(cm.Namespace, cm.Name), cm, &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
}
