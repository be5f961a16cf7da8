package cacher

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// gatedBackend hands out storages whose lists wait for gate to close.
type gatedBackend struct {
	storage.Backend
	gate chan struct{}
}

func (b gatedBackend) ForResource(cfg storage.ResourceConfig) (storage.Interface, error) {
	s, err := b.Backend.ForResource(cfg)
	return gatedStorage{Interface: s, gate: b.gate}, err
}

type gatedStorage struct {
	storage.Interface
	gate chan struct{}
}

func (s gatedStorage) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	select {
	case <-s.gate:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Interface.GetList(ctx, key, opts, listObj)
}

// forResourceAsync calls ForResource in the background; the channel gets
// the storage once it returns.
func forResourceAsync(t *testing.T, b *Backend, prefix string) <-chan storage.Interface {
	res := storagetest.ConfigMapResource()
	res.ResourcePrefix = prefix
	got := make(chan storage.Interface, 1)
	go func() {
		s, err := b.ForResource(res)
		if err != nil {
			t.Error(err)
		}
		got <- s
	}()
	return got
}

func TestDeferredInitialSync(t *testing.T) {
	inner := memory.New()
	t.Cleanup(func() { _ = inner.Close() })
	gate := make(chan struct{})
	b := cachedBackend(t, gatedBackend{Backend: inner, gate: gate})

	b.DeferInitialSync()
	var deferred storage.Interface
	select {
	case deferred = <-forResourceAsync(t, b, "/deferred"):
	case <-time.After(10 * time.Second):
		t.Fatal("ForResource waited for the first list between DeferInitialSync and WaitInitialSync")
	}
	if cacheReady(deferred) {
		t.Fatal("the cache is ready although its storage has not answered a list")
	}

	waited := make(chan struct{})
	go func() {
		b.WaitInitialSync(t.Context())
		close(waited)
	}()
	select {
	case <-waited:
		t.Fatal("WaitInitialSync returned before the pending cache's first list")
	case <-time.After(50 * time.Millisecond):
	}
	close(gate)
	<-waited
	if !cacheReady(deferred) {
		t.Error("WaitInitialSync returned before the cache was ready")
	}

	// Afterwards ForResource waits again: a cache created now is ready
	// when it is handed out.
	s := <-forResourceAsync(t, b, "/later")
	if !cacheReady(s) {
		t.Error("ForResource after WaitInitialSync returned a cache that is not ready")
	}
}

func cacheReady(s storage.Interface) bool {
	_, ready, _ := s.(*Cacher).state.view()
	return ready
}

// signalBackend hands out storages that report each list on listed.
type signalBackend struct {
	storage.Backend
	listed chan string
}

func (b signalBackend) ForResource(cfg storage.ResourceConfig) (storage.Interface, error) {
	s, err := b.Backend.ForResource(cfg)
	return signalStorage{Interface: s, listed: b.listed}, err
}

type signalStorage struct {
	storage.Interface
	listed chan string
}

func (s signalStorage) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	s.listed <- key
	return s.Interface.GetList(ctx, key, opts, listObj)
}

// deferredCache is a cache made between DeferInitialSync and
// WaitInitialSync on memory, whose storage reports its lists on listed.
func deferredCache(t *testing.T) (*Backend, storage.Interface, chan string) {
	inner := memory.New()
	t.Cleanup(func() { _ = inner.Close() })
	listed := make(chan string, 10)
	b := cachedBackend(t, signalBackend{Backend: inner, listed: listed})
	b.DeferInitialSync()
	return b, <-forResourceAsync(t, b, "/deferred"), listed
}

// A deferred cache lists only once WaitInitialSync is called, so what the
// server wrote before (its bootstrap data) is in the list rather than
// replayed by a watch that starts behind storage's revision.
func TestDeferredCachesListOnlyAtWaitInitialSync(t *testing.T) {
	b, deferred, listed := deferredCache(t)
	select {
	case key := <-listed:
		t.Fatalf("the deferred cache listed %s before WaitInitialSync", key)
	case <-time.After(50 * time.Millisecond):
	}
	b.WaitInitialSync(t.Context())
	select {
	case <-listed:
	default:
		t.Fatal("WaitInitialSync returned and the deferred cache had not listed")
	}
	if !cacheReady(deferred) {
		t.Error("WaitInitialSync returned before the cache was ready")
	}
}

// A deferred cache stopped before WaitInitialSync never lists, and Stop
// does not hang.
func TestDeferredCacheStoppedBeforeItLists(t *testing.T) {
	b, deferred, listed := deferredCache(t)
	deferred.(*Cacher).Stop()
	b.WaitInitialSync(t.Context())
	select {
	case key := <-listed:
		t.Fatalf("a stopped cache listed %s", key)
	default:
	}
}
