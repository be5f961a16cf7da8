package cacher

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

func listRV(t *testing.T, list *corev1.ConfigMapList) uint64 {
	t.Helper()
	rv, err := storage.APIObjectVersioner{}.ParseResourceVersion(list.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

func names(list *corev1.ConfigMapList) []string {
	var out []string
	for _, cm := range list.Items {
		out = append(out, cm.Namespace+"/"+cm.Name)
	}
	return out
}

// TestListRoutes checks which lists the cache answers itself and which it
// sends to storage.
func TestListRoutes(t *testing.T) {
	f := newFixture(t, Config{})
	a := f.create("ns", "a")
	f.create("ns", "b")
	f.create("other", "c")
	pred := func(label string, limit int64, cont string) storage.SelectionPredicate {
		p, err := storagetest.Predicate(label, "")
		if err != nil {
			t.Fatal(err)
		}
		p.Limit, p.Continue = limit, cont
		return p
	}
	tests := []struct {
		name        string
		key         string
		opts        storage.ListOptions
		fromStorage bool
		want        []string
	}{
		{"rv=0", "/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true}, false,
			[]string{"ns/a", "ns/b", "other/c"}},
		{"rv=0 namespace", "/configmaps/ns", storage.ListOptions{ResourceVersion: "0", Recursive: true}, false,
			[]string{"ns/a", "ns/b"}},
		{"rv=0 label", "/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: pred("app=none", 0, "")}, false,
			nil},
		{"rv=0 single key", "/configmaps/ns/a", storage.ListOptions{ResourceVersion: "0"}, false,
			[]string{"ns/a"}},
		{"rv=0 limit", "/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: pred("", 2, "")}, false,
			[]string{"ns/a", "ns/b"}},
		{"consistent", "/configmaps", storage.ListOptions{Recursive: true}, false,
			[]string{"ns/a", "ns/b", "other/c"}},
		{"not older than", "/configmaps", storage.ListOptions{ResourceVersion: a.ResourceVersion,
			ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, Recursive: true}, false,
			[]string{"ns/a", "ns/b", "other/c"}},
		{"legacy rv without limit", "/configmaps", storage.ListOptions{ResourceVersion: a.ResourceVersion, Recursive: true}, false,
			[]string{"ns/a", "ns/b", "other/c"}},
		{"exact", "/configmaps", storage.ListOptions{ResourceVersion: a.ResourceVersion,
			ResourceVersionMatch: metav1.ResourceVersionMatchExact, Recursive: true}, true,
			[]string{"ns/a"}},
		{"legacy paged at rv", "/configmaps", storage.ListOptions{ResourceVersion: a.ResourceVersion, Recursive: true,
			Predicate: pred("", 5, "")}, true,
			[]string{"ns/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.spy.lists.Load()
			list := f.list(tt.key, tt.opts)
			if diff := cmp.Diff(tt.want, names(list)); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if got := f.spy.lists.Load() - before; (got > 0) != tt.fromStorage {
				t.Errorf("storage lists = %d, want from storage: %v", got, tt.fromStorage)
			}
			if list.ResourceVersion == "" {
				t.Error("list has no resourceVersion")
			}
		})
	}
}

// TestConsistentListWaitsForProgress moves the revision with a write to
// another resource: only a progress notification can bring the cache there.
// A cache without idle requests (a Backend's) asks only while the list
// waits.
func TestConsistentListWaitsForProgress(t *testing.T) {
	for name, idle := range map[string]time.Duration{"idle requests": 0, "requests only while waiting": -1} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, Config{ProgressInterval: idle})
				f.create("ns", "a")
				want := f.bumpRevision()
				lists := f.spy.lists.Load()
				list := f.list("/configmaps", storage.ListOptions{Recursive: true})
				if got := listRV(t, list); got < want {
					t.Errorf("consistent list at resourceVersion %d, want >= %d", got, want)
				}
				if f.spy.progress.Load() == 0 {
					t.Error("the cache never asked storage for progress")
				}
				if f.spy.lists.Load() != lists {
					t.Error("the consistent list went to storage, want it served from the cache")
				}
				if idle < 0 {
					asked := f.spy.progress.Load()
					time.Sleep(time.Minute)
					synctest.Wait()
					if got := f.spy.progress.Load(); got != asked {
						t.Errorf("the cache asked for progress %d more times with nothing waiting", got-asked)
					}
				}
			})
		})
	}
}

// TestConsistentListFallsBackToStorage: a cache that cannot catch up in
// time (no progress notifications) lets storage answer.
func TestConsistentListFallsBackToStorage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		f.spy.noProgress.Store(true)
		want := f.bumpRevision()
		lists := f.spy.lists.Load()
		list := f.list("/configmaps", storage.ListOptions{Recursive: true})
		if got := listRV(t, list); got < want {
			t.Errorf("list at resourceVersion %d, want >= %d", got, want)
		}
		if f.spy.lists.Load() != lists+1 {
			t.Errorf("storage lists = %d, want one fallback", f.spy.lists.Load()-lists)
		}
		fellBack := []string{"success", "true", "fallback", "true"}
		if got := f.metric("apiserver_watch_cache_consistent_read_total", fellBack...); got != 1 {
			t.Errorf("consistent reads%v = %v, want 1", fellBack, got)
		}
	})
}

// TestReadTooLargeResourceVersion: a revision the cache does not reach in
// time fails with the upstream message.
func TestReadTooLargeResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		a := f.create("ns", "a")
		future := rvOf(t, a) + 100
		want := fmt.Sprintf("Too large resource version: %d, current: %d", future, rvOf(t, a))
		rv := fmt.Sprint(future)
		errs := map[string]error{
			"list": f.c.GetList(f.ctx, "/configmaps", storage.ListOptions{ResourceVersion: rv, Recursive: true,
				ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, Predicate: storage.Everything}, &corev1.ConfigMapList{}),
			"get": f.c.Get(f.ctx, storagetest.ConfigMapKey("ns", "a"), storage.GetOptions{ResourceVersion: rv}, &corev1.ConfigMap{}),
		}
		_, werr := f.c.Watch(f.ctx, "/configmaps", storage.ListOptions{ResourceVersion: rv, Recursive: true, Predicate: storage.Everything})
		errs["watch"] = werr
		for op, err := range errs {
			if storage.CodeOf(err) != storage.ErrCodeTooLargeResourceVersion || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %v, want TooLargeResourceVersion with %q", op, err, want)
			}
		}
	})
}

// TestPagingFromCache: the first page and the continuations come from the
// cache, the continuations from its state at the first page's revision;
// every object shows up exactly once even with writes between pages.
func TestPagingFromCache(t *testing.T) {
	f := newFixture(t, Config{})
	var want []string
	for i := range 25 {
		name := fmt.Sprintf("cm-%02d", i)
		f.create("ns", name)
		want = append(want, "ns/"+name)
	}
	opts := storage.ListOptions{Recursive: true, Predicate: storage.Everything}
	opts.Predicate.Limit = 7
	lists := f.spy.lists.Load()
	first := f.list("/configmaps", opts)
	if f.spy.lists.Load() != lists {
		t.Error("the first page went to storage, want it served from the cache")
	}
	if first.RemainingItemCount == nil || *first.RemainingItemCount != 18 {
		t.Errorf("remainingItemCount = %v, want 18", first.RemainingItemCount)
	}
	got := names(first)
	// Writes after the first page must not show in later pages.
	f.create("ns", "cm-10a")
	if err := f.c.Delete(f.ctx, storagetest.ConfigMapKey("ns", "cm-20"), nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	for cont := first.Continue; cont != ""; {
		opts.Predicate.Continue = cont
		page := f.list("/configmaps", opts)
		if page.ResourceVersion != first.ResourceVersion {
			t.Errorf("page at resourceVersion %s, want the first page's %s", page.ResourceVersion, first.ResourceVersion)
		}
		got = append(got, names(page)...)
		cont = page.Continue
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paged items (-want +got):\n%s", diff)
	}
	if pages := f.spy.lists.Load() - lists; pages != 0 {
		t.Errorf("storage served %d pages, want none", pages)
	}
}

func TestGetRoutes(t *testing.T) {
	f := newFixture(t, Config{})
	a := f.create("ns", "a")
	tests := []struct {
		rv          string
		key         string
		ignore      bool
		fromStorage bool
		wantCode    storage.ErrorCode
	}{
		{rv: "", key: "a", fromStorage: true},
		{rv: "0", key: "a"},
		{rv: a.ResourceVersion, key: "a"},
		{rv: "0", key: "missing", wantCode: storage.ErrCodeKeyNotFound},
		{rv: "0", key: "missing", ignore: true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("rv=%q/%s/ignore=%v", tt.rv, tt.key, tt.ignore), func(t *testing.T) {
			before := f.spy.gets.Load()
			got := &corev1.ConfigMap{}
			err := f.c.Get(f.ctx, storagetest.ConfigMapKey("ns", tt.key), storage.GetOptions{ResourceVersion: tt.rv, IgnoreNotFound: tt.ignore}, got)
			if code := storage.CodeOf(err); code != tt.wantCode || (code == 0 && err != nil) {
				t.Fatalf("Get = %v, want code %d", err, tt.wantCode)
			}
			if tt.key == "a" && got.ResourceVersion != a.ResourceVersion {
				t.Errorf("Get returned resourceVersion %q, want %s", got.ResourceVersion, a.ResourceVersion)
			}
			if (f.spy.gets.Load() > before) != tt.fromStorage {
				t.Errorf("read from storage: %v, want %v", f.spy.gets.Load() > before, tt.fromStorage)
			}
		})
	}
	// Get hands out a copy: changing it leaves the cache alone.
	got := &corev1.ConfigMap{}
	if err := f.c.Get(f.ctx, storagetest.ConfigMapKey("ns", "a"), storage.GetOptions{ResourceVersion: "0"}, got); err != nil {
		t.Fatal(err)
	}
	got.Data["key"] = "changed"
	again := &corev1.ConfigMap{}
	if err := f.c.Get(f.ctx, storagetest.ConfigMapKey("ns", "a"), storage.GetOptions{ResourceVersion: "0"}, again); err != nil {
		t.Fatal(err)
	}
	if again.Data["key"] != "value" {
		t.Errorf("a caller's change reached the cache: data %v", again.Data)
	}
}

// TestReadsFollowOwnWrites: right after a write through the cache, a read
// at resourceVersion "0" sees it.
func TestReadsFollowOwnWrites(t *testing.T) {
	f := newFixture(t, Config{})
	for i := range 20 {
		name := fmt.Sprintf("cm-%d", i)
		created := f.create("ns", name)
		got := &corev1.ConfigMap{}
		if err := f.c.Get(f.ctx, storagetest.ConfigMapKey("ns", name), storage.GetOptions{ResourceVersion: "0"}, got); err != nil {
			t.Fatalf("Get at 0 right after Create: %v", err)
		}
		if got.ResourceVersion != created.ResourceVersion {
			t.Fatalf("Get at 0 returned resourceVersion %s, want %s", got.ResourceVersion, created.ResourceVersion)
		}
	}
}
