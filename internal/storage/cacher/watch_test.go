package cacher

import (
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// expectExpired fails unless ev is the 410 Gone status with message.
func expectExpired(t *testing.T, ev watch.Event, message string) {
	t.Helper()
	st, ok := ev.Object.(*metav1.Status)
	if ev.Type != watch.Error || !ok || st.Code != http.StatusGone || st.Reason != metav1.StatusReasonExpired || st.Message != message {
		t.Fatalf("got %s %+v, want a 410 Expired status %q", ev.Type, ev.Object, message)
	}
}

// TestWatchFromRing replays from the ring and sends 410 Gone for a
// resourceVersion the ring no longer reaches.
func TestWatchFromRing(t *testing.T) {
	f := newFixture(t, Config{HistorySize: 3})
	created := f.create("ns", "a")
	var updates []*corev1.ConfigMap
	for i := range 5 {
		updates = append(updates, f.update("ns", "a", fmt.Sprint(i)))
	}
	// Wait until the cache has every update.
	if _, err := f.c.waitForRV(f.ctx, rvOf(t, updates[4])); err != nil {
		t.Fatal(err)
	}
	// The ring holds updates 2..4; everything after update 1 is replayable.
	oldest := rvOf(t, updates[1])
	tests := []struct {
		from    uint64
		expired bool
		want    []*corev1.ConfigMap
	}{
		{from: rvOf(t, created), expired: true},
		{from: oldest - 1, expired: true},
		{from: oldest, want: updates[2:]},
		{from: rvOf(t, updates[3]), want: updates[4:]},
		{from: rvOf(t, updates[4])},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("from=%d", tt.from), func(t *testing.T) {
			w := f.watch("/configmaps", storage.ListOptions{ResourceVersion: fmt.Sprint(tt.from), Recursive: true})
			if tt.expired {
				expectExpired(t, next(t, w), fmt.Sprintf("too old resource version: %d (%d)", tt.from, oldest))
				if _, open := <-w.ResultChan(); open {
					t.Error("watch still open after the 410 event")
				}
				return
			}
			for _, want := range tt.want {
				ev := next(t, w)
				if got := eventObject(t, ev); ev.Type != watch.Modified || got.ResourceVersion != want.ResourceVersion {
					t.Fatalf("got %s at %s, want MODIFIED at %s", ev.Type, got.ResourceVersion, want.ResourceVersion)
				}
			}
			last := f.update("ns", "a", "live")
			if got := eventObject(t, next(t, w)); got.ResourceVersion != last.ResourceVersion {
				t.Errorf("live event at %s, want %s", got.ResourceVersion, last.ResourceVersion)
			}
		})
	}
}

// TestCompactTrimsRing: after a compaction through the Backend, a watch
// from before the compacted revision gets 410 Gone from the cache.
func TestCompactTrimsRing(t *testing.T) {
	b := cachedBackend(t, memory.New())
	s, err := b.ForResource(storagetest.ConfigMapResource())
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	a := &corev1.ConfigMap{}
	if err := s.Create(ctx, storagetest.ConfigMapKey("ns", "a"), configMap("ns", "a", nil), a); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, storagetest.ConfigMapKey("ns", "b"), configMap("ns", "b", nil), nil); err != nil {
		t.Fatal(err)
	}
	cur, _ := s.CurrentResourceVersion(ctx)
	if err := b.Compact(ctx, int64(cur)); err != nil {
		t.Fatal(err)
	}
	for from, expired := range map[uint64]bool{rvOf(t, a): true, cur: false} {
		w, err := s.Watch(ctx, "/configmaps", storage.ListOptions{ResourceVersion: fmt.Sprint(from), Recursive: true, Predicate: storage.Everything})
		if err != nil {
			t.Fatal(err)
		}
		if expired {
			expectExpired(t, next(t, w), fmt.Sprintf("too old resource version: %d (%d)", from, cur))
		} else if _, ok := w.(*cacheWatcher); !ok {
			t.Errorf("watch from the compacted revision is a %T, want one served by the cache", w)
		}
		w.Stop()
	}
}

// TestSlowWatcherIsClosed: a watcher that does not read is closed once its
// buffer is full and the time budget is spent, while a reading watcher
// receives every change.
func TestSlowWatcherIsClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		f.create("ns", "a")
		slow := f.watch("/configmaps", storage.ListOptions{ResourceVersion: "0", SendInitialEvents: new(false), Recursive: true})
		fast := f.watch("/configmaps", storage.ListOptions{ResourceVersion: "0", SendInitialEvents: new(false), Recursive: true})
		const updates = 3 * watcherBufferSize
		got := make(chan []string)
		go func() {
			var seen []string
			for ev := range fast.ResultChan() {
				seen = append(seen, eventObject(t, ev).Data["key"])
				if len(seen) == updates {
					break
				}
			}
			got <- seen
		}()
		var want []string
		for i := range updates {
			f.update("ns", "a", fmt.Sprint(i))
			want = append(want, fmt.Sprint(i))
		}
		if seen := <-got; fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Errorf("fast watcher saw %d changes %v, want all %d in order", len(seen), seen, updates)
		}
		synctest.Wait()
		// The slow watcher's goroutine was blocked on its first event; once
		// terminated it closes without sending more.
		select {
		case _, open := <-slow.ResultChan():
			if open {
				if _, open = <-slow.ResultChan(); open {
					t.Fatal("slow watcher still delivers events")
				}
			}
		default:
			t.Fatal("slow watcher is still open")
		}
		if got := f.metric("apiserver_terminated_watchers_total"); got != 1 {
			t.Errorf("terminated watchers = %v, want the slow one", got)
		}
	})
}

// TestBookmarkInterval: watchers that asked for progress get a bookmark
// every BookmarkInterval, others none.
func TestBookmarkInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{BookmarkInterval: time.Minute})
		a := f.create("ns", "a")
		synctest.Wait() // the cache has a: no watch below waits for progress
		bookmarks := storage.Everything
		bookmarks.AllowWatchBookmarks = true
		start := storage.ListOptions{ResourceVersion: a.ResourceVersion, Recursive: true, Predicate: bookmarks}
		withProgress := start
		withProgress.ProgressNotify = true
		on := f.watch("/configmaps", withProgress)
		off := f.watch("/configmaps", start)

		time.Sleep(59 * time.Second)
		synctest.Wait()
		expectNothing(t, on)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		ev := next(t, on)
		if cm := eventObject(t, ev); ev.Type != watch.Bookmark || cm.Name != "" || cm.ResourceVersion != a.ResourceVersion {
			t.Errorf("got %s %s@%s, want a BOOKMARK at %s", ev.Type, cm.Name, cm.ResourceVersion, a.ResourceVersion)
		}
		expectNothing(t, off)

		b := f.create("ns", "b")
		if cm := eventObject(t, next(t, on)); cm.Name != "b" {
			t.Fatalf("got %s, want the ADDED event of b", cm.Name)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if cm := eventObject(t, next(t, on)); cm.ResourceVersion != b.ResourceVersion {
			t.Errorf("second bookmark at %s, want %s", cm.ResourceVersion, b.ResourceVersion)
		}
	})
}

// TestProgressBookmarks: a progress notification that moves the cache's
// revision reaches watchers that asked for progress as a bookmark, at most
// once per progressBookmarkGap and only when the revision moved.
func TestProgressBookmarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		a := f.create("ns", "a")
		synctest.Wait()
		pred := storage.Everything
		pred.AllowWatchBookmarks = true
		w := f.watch("/configmaps", storage.ListOptions{ResourceVersion: a.ResourceVersion, Recursive: true, ProgressNotify: true, Predicate: pred})
		progress := func() {
			if err := f.backend.RequestProgress(f.ctx); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
		}
		expectBookmark := func(rv uint64) {
			t.Helper()
			ev := next(t, w)
			if cm := eventObject(t, ev); ev.Type != watch.Bookmark || rvOf(t, cm) != rv {
				t.Fatalf("got %s at %s, want a BOOKMARK at %d", ev.Type, cm.ResourceVersion, rv)
			}
		}

		first := f.bumpRevision()
		progress()
		expectBookmark(first)
		progress() // the revision did not move
		expectNothing(t, w)
		second := f.bumpRevision()
		progress() // too soon after the last one
		expectNothing(t, w)
		time.Sleep(progressBookmarkGap)
		progress()
		expectBookmark(second)
	})
}

// TestRelistAfterWatchEnds: when the underlying watch breaks, the cache
// closes its watchers, relists and serves again, including what was
// written meanwhile.
func TestRelistAfterWatchEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		f.create("ns", "a")
		w := f.watch("/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true})
		eventObject(t, next(t, w))

		f.spy.breakWatches()
		if _, open := <-w.ResultChan(); open {
			t.Fatal("watcher still open after the underlying watch ended")
		}
		b := f.create("ns", "b") // while the cache relists
		if err := f.c.WaitReady(f.ctx); err != nil {
			t.Fatal(err)
		}
		if n := f.spy.lists.Load(); n != 2 {
			t.Errorf("storage lists = %d, want the first list and one relist", n)
		}
		list := f.list("/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true})
		if got := names(list); fmt.Sprint(got) != "[ns/a ns/b]" {
			t.Errorf("list after relist = %v, want a and b", got)
		}
		again := f.watch("/configmaps", storage.ListOptions{ResourceVersion: b.ResourceVersion, Recursive: true})
		c := f.create("ns", "c")
		if got := eventObject(t, next(t, again)); got.Name != "c" || got.ResourceVersion != c.ResourceVersion {
			t.Errorf("got %s@%s, want c@%s", got.Name, got.ResourceVersion, c.ResourceVersion)
		}
	})
}

// TestWatchersShareEncodings: every watcher receives the same wrapper for
// a change, so its encodings are shared.
func TestWatchersShareEncodings(t *testing.T) {
	f := newFixture(t, Config{})
	opts := storage.ListOptions{ResourceVersion: "0", SendInitialEvents: new(false), Recursive: true}
	w1 := f.watch("/configmaps", opts)
	w2 := f.watch("/configmaps/ns", opts)
	f.create("ns", "a")
	e1, e2 := next(t, w1), next(t, w2)
	co, ok := e1.Object.(*cachingObject)
	if !ok || e1.Object != e2.Object {
		t.Fatalf("watchers got %T %p and %T %p, want one shared *cachingObject", e1.Object, e1.Object, e2.Object, e2.Object)
	}
	if co.GetName() != "a" {
		t.Errorf("wrapped object is %q, want a", co.GetName())
	}
}

// TestStopClosesWatchers: Stop ends every watch and later reads go to
// storage.
func TestStopClosesWatchers(t *testing.T) {
	f := newFixture(t, Config{})
	w := f.watch("/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true})
	f.c.Stop()
	if _, open := <-w.ResultChan(); open {
		t.Fatal("watch still open after Stop")
	}
	lists := f.spy.lists.Load()
	f.list("/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true})
	if f.spy.lists.Load() != lists+1 {
		t.Error("list after Stop was not sent to storage")
	}
}
