package cacher

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/etcd3"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// pagingEnv is a cache over one backend's configmaps, with the backend's
// own store next to it to compare pages with.
type pagingEnv struct {
	t      *testing.T
	ctx    context.Context
	inner  storage.Interface
	spy    *spyStorage
	c      *Cacher
	nextID int
}

type backendCase struct {
	name string
	new  func(t *testing.T) storage.Backend
}

// pagingBackends are the storages continued pages are compared on.
var pagingBackends = []backendCase{
	{"memory", func(t *testing.T) storage.Backend { return memory.New() }},
	{"etcd3", func(t *testing.T) storage.Backend {
		return etcd3.New(shared.Client(), shared.NewPrefix("registry-cacher-continue"), nil)
	}},
}

func newPagingEnv(t *testing.T, b storage.Backend, cfg Config) *pagingEnv {
	t.Helper()
	t.Cleanup(func() { _ = b.Close() })
	res := storagetest.ConfigMapResource()
	s, err := b.ForResource(res)
	if err != nil {
		t.Fatal(err)
	}
	e := &pagingEnv{t: t, ctx: t.Context(), inner: s, spy: &spyStorage{Interface: s}}
	cfg.Storage = e.spy
	cfg.ResourcePrefix, cfg.NewFunc, cfg.NewListFunc = res.ResourcePrefix, res.NewFunc, res.NewListFunc
	e.c, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.c.Stop)
	if err := e.c.WaitReady(e.ctx); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *pagingEnv) create(ns, name string, lbls map[string]string) uint64 {
	e.t.Helper()
	out := &corev1.ConfigMap{}
	if err := e.c.Create(e.ctx, storagetest.ConfigMapKey(ns, name), configMap(ns, name, lbls), out); err != nil {
		e.t.Fatal(err)
	}
	return rvOf(e.t, out)
}

func (e *pagingEnv) update(ns, name, value string) uint64 {
	e.t.Helper()
	out := &corev1.ConfigMap{}
	err := e.c.GuaranteedUpdate(e.ctx, storagetest.ConfigMapKey(ns, name), out, false, nil,
		func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			cm := in.(*corev1.ConfigMap).DeepCopy()
			cm.Data["key"] = value
			return cm, nil
		})
	if err != nil {
		e.t.Fatal(err)
	}
	return rvOf(e.t, out)
}

func (e *pagingEnv) delete(ns, name string) uint64 {
	e.t.Helper()
	out := &corev1.ConfigMap{}
	if err := e.c.Delete(e.ctx, storagetest.ConfigMapKey(ns, name), out, nil, nil); err != nil {
		e.t.Fatal(err)
	}
	return rvOf(e.t, out)
}

// fill creates configmaps one..four in namespaces a, b and c; one and
// three are labelled app=web.
func (e *pagingEnv) fill() {
	for i, name := range []string{"one", "two", "three", "four"} {
		for _, ns := range []string{"a", "b", "c"} {
			var lbls map[string]string
			if i%2 == 0 {
				lbls = map[string]string{"app": "web"}
			}
			e.create(ns, name, lbls)
		}
	}
}

// churn changes the first page's neighbourhood and the rest of the list,
// so that a continued page read at the latest state would differ from one
// read at the token's revision.
func (e *pagingEnv) churn() uint64 {
	e.create("a", "aa", nil)
	e.update("b", "two", "changed")
	e.delete("b", "three")
	return e.create("c", "zz", map[string]string{"app": "web"})
}

// listFrom lists through s and fails the test on error.
func (e *pagingEnv) listFrom(s storage.Interface, opts storage.ListOptions) *corev1.ConfigMapList {
	e.t.Helper()
	list := &corev1.ConfigMapList{}
	if err := s.GetList(e.ctx, "/configmaps", opts, list); err != nil {
		e.t.Fatalf("GetList continue=%q: %v", opts.Predicate.Continue, err)
	}
	return list
}

// waitFor makes the cache reach rv, so that its pages are comparable.
func (e *pagingEnv) waitFor(rv uint64) {
	e.t.Helper()
	if _, err := e.c.waitForRV(e.ctx, rv); err != nil {
		e.t.Fatal(err)
	}
}

func pagingPredicate(t *testing.T, label string, limit int64, cont string) storage.SelectionPredicate {
	t.Helper()
	p, err := storagetest.Predicate(label, "")
	if err != nil {
		t.Fatal(err)
	}
	p.Limit, p.Continue = limit, cont
	return p
}

// listMeta is what a page says about itself besides its items.
func listMeta(l *corev1.ConfigMapList) metav1.ListMeta { return l.ListMeta }

// TestContinueFromCacheMatchesStorage pages through a list whose objects
// change between pages, on both backends, with and without a label
// selector, starting once from a storage page and once from a cache page:
// every continued page the cache serves (without asking storage) has the
// items, resourceVersion, continue token and remaining count storage gives
// for the same token.
func TestContinueFromCacheMatchesStorage(t *testing.T) {
	for _, bc := range pagingBackends {
		for _, label := range []string{"", "app=web"} {
			for _, firstFrom := range []string{"storage", "cache"} {
				t.Run(bc.name+"/label="+label+"/first="+firstFrom, func(t *testing.T) {
					e := newPagingEnv(t, bc.new(t), Config{})
					e.fill()
					first := e.inner
					if firstFrom == "cache" {
						first = e.c
					}
					page := e.listFrom(first, storage.ListOptions{Recursive: true, Predicate: pagingPredicate(t, label, 2, "")})
					e.waitFor(e.churn())
					pages := 1
					for page.Continue != "" {
						opts := storage.ListOptions{Recursive: true, Predicate: pagingPredicate(t, label, 2, page.Continue)}
						want := e.listFrom(e.inner, opts)
						lists := e.spy.lists.Load()
						got := e.listFrom(e.c, opts)
						if e.spy.lists.Load() != lists {
							t.Fatalf("page %d went to storage, want it served from the cache", pages+1)
						}
						if diff := cmp.Diff(want.Items, got.Items); diff != "" {
							t.Fatalf("page %d items (-storage +cache):\n%s", pages+1, diff)
						}
						if diff := cmp.Diff(listMeta(want), listMeta(got)); diff != "" {
							t.Fatalf("page %d list metadata (-storage +cache):\n%s", pages+1, diff)
						}
						page = got
						pages++
					}
					if pages < 3 {
						t.Errorf("listed %d pages, want at least 3", pages)
					}
				})
			}
		}
	}
}

// TestContinueBeyondHistory: a token older than the cache's history (the
// ring of 2 changes moved on) is served by storage, which still has the
// revision.
func TestContinueBeyondHistory(t *testing.T) {
	for _, bc := range pagingBackends {
		t.Run(bc.name, func(t *testing.T) {
			e := newPagingEnv(t, bc.new(t), Config{HistorySize: 2})
			e.fill()
			first := e.listFrom(e.c, storage.ListOptions{Recursive: true, Predicate: pagingPredicate(t, "", 1, "")})
			e.waitFor(e.churn())
			opts := storage.ListOptions{Recursive: true, Predicate: pagingPredicate(t, "", 1, first.Continue)}
			lists := e.spy.lists.Load()
			got := e.listFrom(e.c, opts)
			if e.spy.lists.Load() == lists {
				t.Error("the page was served from the cache, want storage: its revision is older than the cache's history")
			}
			want := e.listFrom(e.inner, opts)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("page (-storage +cache):\n%s", diff)
			}
		})
	}
}

// TestContinueCompacted: after a compaction past the token's revision the
// cache forgets the state and storage answers 410 Expired with the token
// that continues at the latest revision, as kube-apiserver does.
func TestContinueCompacted(t *testing.T) {
	b := memory.New()
	e := newPagingEnv(t, b, Config{})
	e.fill()
	first := e.listFrom(e.c, storage.ListOptions{Recursive: true, Predicate: pagingPredicate(t, "", 1, "")})
	rv := e.churn()
	e.waitFor(rv)
	if err := b.Compact(e.ctx, int64(rv)); err != nil {
		t.Fatal(err)
	}
	e.c.state.trim(rv) // what the cache Backend does after compacting
	opts := storage.ListOptions{Recursive: true, Predicate: pagingPredicate(t, "", 1, first.Continue)}
	err := e.c.GetList(e.ctx, "/configmaps", opts, &corev1.ConfigMapList{})
	if storage.CodeOf(err) != storage.ErrCodeExpired {
		t.Fatalf("GetList = %v, want Expired", err)
	}
	wantErr := e.inner.GetList(e.ctx, "/configmaps", opts, &corev1.ConfigMapList{})
	if diff := cmp.Diff(wantErr.Error(), err.Error()); diff != "" {
		t.Errorf("error (-storage +cache):\n%s", diff)
	}
}

// TestSnapshotsBounded: the cache keeps one state per change its ring
// holds, plus the one the ring starts from, and drops them on compaction.
func TestSnapshotsBounded(t *testing.T) {
	e := newPagingEnv(t, memory.New(), Config{HistorySize: 3})
	var rv uint64
	for i := range 10 {
		rv = e.create("a", string(rune('a'+i)), nil)
	}
	e.waitFor(rv)
	e.c.state.mu.RLock()
	n := e.c.state.snaps.len()
	e.c.state.mu.RUnlock()
	if n != 4 {
		t.Errorf("%d snapshots after 10 changes with a ring of 3, want 4", n)
	}
	e.c.state.trim(rv)
	e.c.state.mu.RLock()
	n = e.c.state.snaps.len()
	e.c.state.mu.RUnlock()
	if n != 1 {
		t.Errorf("%d snapshots after compacting at the cache's revision, want 1", n)
	}
}

// TestContinueConcurrentWithWrites pages through the list from several
// goroutines while another one creates, updates and deletes: the pages
// share the cache's objects and snapshots with the writer (run with
// -race). Every paged list is consistent: all its pages are at the first
// page's revision, keys strictly increase and no item is newer.
func TestContinueConcurrentWithWrites(t *testing.T) {
	e := newPagingEnv(t, memory.New(), Config{})
	for i := range 40 {
		e.create("ns", fmt.Sprintf("cm-%02d", i), nil)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	var writer sync.WaitGroup
	writer.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			name := fmt.Sprintf("cm-%02d", i%40)
			key := storagetest.ConfigMapKey("ns", name)
			_ = e.c.GuaranteedUpdate(ctx, key, &corev1.ConfigMap{}, true, nil,
				func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
					cm := in.(*corev1.ConfigMap).DeepCopy()
					if cm.Name == "" { // deleted: create it again
						cm = configMap("ns", name, nil)
					}
					cm.Data["key"] = fmt.Sprint(i)
					return cm, nil
				})
			if i%7 == 0 {
				_ = e.c.Delete(ctx, storagetest.ConfigMapKey("ns", fmt.Sprintf("cm-%02d", (i+3)%40)), &corev1.ConfigMap{}, nil, nil)
			}
		}
	})
	var readers sync.WaitGroup
	for range 3 {
		readers.Go(func() {
			for range 20 {
				if err := pageThrough(e); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	readers.Wait()
	cancel()
	writer.Wait()
}

// pageThrough lists every page of 7 and checks the list is consistent.
func pageThrough(e *pagingEnv) error {
	opts := storage.ListOptions{Recursive: true, Predicate: storage.Everything}
	opts.Predicate.Limit = 7
	var rv, last string
	for {
		list := &corev1.ConfigMapList{}
		if err := e.c.GetList(e.ctx, "/configmaps", opts, list); err != nil {
			return err
		}
		if rv == "" {
			rv = list.ResourceVersion
		} else if list.ResourceVersion != rv {
			return fmt.Errorf("page at resourceVersion %s, want %s", list.ResourceVersion, rv)
		}
		listRV, _ := strconv.ParseUint(rv, 10, 64)
		for _, cm := range list.Items {
			if cm.Name <= last {
				return fmt.Errorf("%s after %s", cm.Name, last)
			}
			last = cm.Name
			if itemRV, _ := strconv.ParseUint(cm.ResourceVersion, 10, 64); itemRV > listRV {
				return fmt.Errorf("%s at resourceVersion %d in a list at %d", cm.Name, itemRV, listRV)
			}
		}
		if list.Continue == "" {
			return nil
		}
		opts.Predicate.Continue = list.Continue
	}
}
