package cacher

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kapi-dev/kapi/internal/storage"
)

// TestMetricsInitialization: a cache that fills counts the
// initialization, its duration, its revision and its capacity; a list that
// fails counts an error, and the relist after it another initialization.
func TestMetricsInitialization(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{HistorySize: 7})
		for _, c := range []struct {
			family string
			want   float64
		}{
			{"apiserver_watch_cache_initializations_total", 1},
			{"apiserver_watch_cache_initialization_duration_seconds", 1},
			{"apiserver_watch_cache_initialization_errors_total", 0},
			{"watch_cache_capacity", 7},
			{"apiserver_watch_cache_resource_version", float64(f.c.state.rv)},
		} {
			if got := f.metric(c.family); got != c.want {
				t.Errorf("%s = %v after the first list, want %v", c.family, got, c.want)
			}
		}

		f.spy.failLists.Store(true)
		f.spy.breakWatches()
		time.Sleep(minRelistBackoff) // the relist, which fails
		synctest.Wait()
		if got := f.metric("apiserver_watch_cache_initialization_errors_total"); got != 1 {
			t.Errorf("initialization errors = %v after a failed list, want 1", got)
		}
		f.spy.failLists.Store(false)
		if err := f.c.WaitReady(f.ctx); err != nil {
			t.Fatal(err)
		}
		if got := f.metric("apiserver_watch_cache_initializations_total"); got != 2 {
			t.Errorf("initializations = %v after the relist, want 2", got)
		}
	})
}

// TestMetricsEvents: each change the cache receives counts as received
// and, once fanned out, dispatched, and moves the revision gauge; a
// progress notification is dispatched too.
func TestMetricsEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		received := f.metric("apiserver_watch_cache_events_received_total")
		dispatched := f.metric("apiserver_watch_cache_events_dispatched_total")
		f.create("ns", "a")
		last := f.update("ns", "a", "1")
		synctest.Wait()
		if got := f.metric("apiserver_watch_cache_events_received_total") - received; got != 2 {
			t.Errorf("events received went up by %v, want 2", got)
		}
		if got := f.metric("apiserver_watch_cache_events_dispatched_total") - dispatched; got != 2 {
			t.Errorf("events dispatched went up by %v, want 2", got)
		}
		if got, want := f.metric("apiserver_watch_cache_resource_version"), float64(rvOf(t, last)); got != want {
			t.Errorf("resource version gauge = %v, want %v", got, want)
		}

		want := f.bumpRevision()
		if err := f.c.RequestWatchProgress(f.ctx); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := f.metric("apiserver_watch_cache_events_dispatched_total") - dispatched; got != 3 {
			t.Errorf("events dispatched went up by %v after a progress notification, want 3", got)
		}
		if got := f.metric("apiserver_watch_cache_events_received_total") - received; got != 2 {
			t.Errorf("events received went up by %v after a progress notification, want still 2", got)
		}
		if got := f.metric("apiserver_watch_cache_resource_version"); got != float64(want) {
			t.Errorf("resource version gauge = %v after progress, want %v", got, want)
		}
	})
}

// TestMetricsInitEvents: a watch from "0" counts the objects it is sent
// first; one resuming from a revision counts the changes it replays.
func TestMetricsInitEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		f.create("ns", "a")
		f.create("ns", "b")
		from := f.create("other", "c")
		f.update("ns", "a", "1")
		synctest.Wait()
		w := f.watch("/configmaps/ns", storage.ListOptions{ResourceVersion: "0", Recursive: true})
		next(t, w)
		next(t, w)
		synctest.Wait()
		if got := f.metric("apiserver_init_events_total"); got != 2 {
			t.Errorf("init events = %v after a watch from 0 sent 2 objects, want 2", got)
		}
		// Of the changes after from, one is in the watched namespace.
		replay := f.watch("/configmaps/ns", storage.ListOptions{ResourceVersion: from.ResourceVersion, Recursive: true})
		next(t, replay)
		synctest.Wait()
		if got := f.metric("apiserver_init_events_total"); got != 3 {
			t.Errorf("init events = %v after a watch replayed 1 change, want 3", got)
		}
	})
}

// TestMetricsLists: lists served from the cache count under
// storage="watchcache" with what they walked, tested and returned; a
// consistent one counts as a consistent read.
func TestMetricsLists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		for _, name := range []string{"a", "b", "c"} {
			f.create("ns", name)
		}
		f.create("other", "d")
		f.list("/configmaps/ns", storage.ListOptions{ResourceVersion: "0", Recursive: true})
		f.list("/configmaps", storage.ListOptions{Recursive: true})
		page := storage.ListOptions{ResourceVersion: "0", Recursive: true}
		page.Predicate = storage.Everything
		page.Predicate.Limit = 1
		f.list("/configmaps", page)
		cache := []string{"storage", "watchcache"}
		for _, c := range []struct {
			family string
			want   float64
		}{
			{"apiserver_storage_list_total", 3},
			// 3 in ns, 4 in all; the page walks on to count what is left.
			{"apiserver_storage_list_fetched_objects_total", 3 + 4 + 4},
			{"apiserver_storage_list_evaluated_objects_total", 3 + 4 + 1},
			{"apiserver_storage_list_returned_objects_total", 3 + 4 + 1},
		} {
			if got := f.metric(c.family, cache...); got != c.want {
				t.Errorf("%s%v = %v, want %v", c.family, cache, got, c.want)
			}
		}
		served := []string{"success", "true", "fallback", "false"}
		if got := f.metric("apiserver_watch_cache_consistent_read_total", served...); got != 1 {
			t.Errorf("consistent reads%v = %v, want 1", served, got)
		}
	})
}

// TestMetricsReadWait: a read that waits for the cache to catch up is
// timed; one the cache is fresh enough for is not.
func TestMetricsReadWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		f.create("ns", "a")
		synctest.Wait()
		f.list("/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true})
		if got := f.metric("apiserver_watch_cache_read_wait_seconds"); got != 0 {
			t.Errorf("read waits = %v for a read of a fresh cache, want 0", got)
		}
		f.bumpRevision()
		f.list("/configmaps", storage.ListOptions{Recursive: true})
		if got := f.metric("apiserver_watch_cache_read_wait_seconds"); got != 1 {
			t.Errorf("read waits = %v after a consistent read behind storage, want 1", got)
		}
	})
}
