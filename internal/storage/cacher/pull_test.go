package cacher

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// pulled opens a watch, with bookmarks, that the test drives with Next,
// as the HTTP handler does.
func (f *fixture) pulled(key string, opts storage.ListOptions) storage.PulledWatch {
	f.t.Helper()
	opts.Predicate.AllowWatchBookmarks = true
	w := f.open(key, opts)
	p, ok := w.(storage.PulledWatch)
	if !ok {
		f.t.Fatalf("watch is a %T, want a storage.PulledWatch", w)
	}
	return p
}

func (f *fixture) watchers() int {
	f.c.dispatcher.mu.Lock()
	defer f.c.dispatcher.mu.Unlock()
	return len(f.c.dispatcher.watchers)
}

// describe is "TYPE name" for an event, with "end" for the
// initial-events-end bookmark.
func describe(t *testing.T, ev watch.Event) string {
	t.Helper()
	cm := eventObject(t, ev)
	if cm.Annotations[metav1.InitialEventsAnnotationKey] == "true" {
		return fmt.Sprintf("%s end", ev.Type)
	}
	return fmt.Sprintf("%s %s", ev.Type, cm.Name)
}

// TestPulledWatch: a watch driven by Next sends the initial state, the
// initial-events-end bookmark and the live changes in order, without a
// goroutine of its own; an ended context ends one call, not the watch;
// Stop ends it and leaves the dispatcher.
func TestPulledWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		f.create("ns", "a")
		synctest.Wait()
		w := f.pulled("/configmaps", storage.ListOptions{ResourceVersion: "", SendInitialEvents: new(true), Recursive: true})
		synctest.Wait()
		if w.(*cacheWatcher).result != nil {
			t.Error("a pulled watch made its result channel")
		}
		f.create("ns", "b")
		var got []string
		for range 3 {
			ev, ok := w.Next(f.ctx)
			if !ok {
				t.Fatal("watch ended, want an event")
			}
			got = append(got, describe(t, ev))
		}
		if want := "[ADDED a BOOKMARK end ADDED b]"; fmt.Sprint(got) != want {
			t.Errorf("events %v, want %s", got, want)
		}

		ended, cancel := context.WithCancel(f.ctx)
		cancel()
		if _, ok := w.Next(ended); ok {
			t.Error("Next with an ended context returned an event")
		}
		f.create("ns", "c")
		if ev, ok := w.Next(f.ctx); !ok || describe(t, ev) != "ADDED c" {
			t.Errorf("after an ended context: %v %v, want ADDED c", ok, ev.Type)
		}

		w.Stop()
		if _, ok := w.Next(f.ctx); ok {
			t.Error("Next after Stop returned an event")
		}
		if n := f.watchers(); n != 0 {
			t.Errorf("dispatcher holds %d watchers after Stop, want 0", n)
		}
	})
}

// TestPulledSlowWatcherIsClosed: a pulled watch that falls watcherBufferSize
// changes behind is closed like any other once the dispatcher's budget is
// spent: Next reports the end.
func TestPulledSlowWatcherIsClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		f.create("ns", "a")
		synctest.Wait()
		w := f.pulled("/configmaps", storage.ListOptions{ResourceVersion: "0", SendInitialEvents: new(false), Recursive: true})
		for i := range watcherBufferSize + 1 {
			f.update("ns", "a", fmt.Sprint(i))
		}
		time.Sleep(maxBudget) // the dispatcher waits this long for room
		synctest.Wait()
		if got := f.metric("apiserver_terminated_watchers_total"); got != 1 {
			t.Errorf("terminated watchers = %v, want the slow one", got)
		}
		if _, ok := w.Next(f.ctx); ok {
			t.Error("Next on a terminated watch returned an event")
		}
		if n := f.watchers(); n != 0 {
			t.Errorf("dispatcher holds %d watchers, want 0", n)
		}
	})
}

// TestPulledWatchEndsWithCache: stopping the cache ends a pulled watch.
func TestPulledWatchEndsWithCache(t *testing.T) {
	f := newFixture(t, Config{})
	w := f.pulled("/configmaps", storage.ListOptions{ResourceVersion: "0", SendInitialEvents: new(false), Recursive: true})
	f.c.Stop()
	if ev, ok := w.Next(f.ctx); ok {
		t.Fatalf("Next after the cache stopped returned %s", ev.Type)
	}
}

// TestFullWatcherThatMakesRoomStays: the dispatcher waits for a watcher
// with a full buffer and hears at once when it takes a delivery; the
// watcher gets the change and keeps every later one, in order.
func TestFullWatcherThatMakesRoomStays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		f.create("ns", "a")
		synctest.Wait()
		w := f.pulled("/configmaps", storage.ListOptions{ResourceVersion: "0", SendInitialEvents: new(false), Recursive: true})
		const updates = watcherBufferSize + 5
		start := time.Now()
		for i := range updates {
			f.update("ns", "a", fmt.Sprint(i))
		}
		synctest.Wait() // the dispatcher waits for room, its budget unspent
		for i := range updates {
			ev, ok := w.Next(f.ctx)
			if !ok {
				t.Fatalf("watch ended after %d changes, want %d", i, updates)
			}
			if got := eventObject(t, ev).Data["key"]; got != fmt.Sprint(i) {
				t.Fatalf("change %d carries %q, want %d", i, got, i)
			}
			synctest.Wait()
		}
		if got := f.metric("apiserver_terminated_watchers_total"); got != 0 {
			t.Errorf("terminated watchers = %v, want none", got)
		}
		// On the bubble's fake clock: the room was seen at once, the
		// dispatcher did not wait out its budget.
		if waited := time.Since(start); waited != 0 {
			t.Errorf("the dispatcher waited %v for room that was made at once", waited)
		}
	})
}

// TestPulledTryNext: TryNext takes only what is ready. Objects of the
// start state the selector drops are skipped without waiting, so a
// server that writes what TryNext gives and flushes when it gives nothing
// never holds back an event while Next waits for the next change.
func TestPulledTryNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, Config{})
		f.create("ns", "a")
		f.create("ns", "b")
		synctest.Wait()
		pred, err := storagetest.Predicate("", "metadata.name=a")
		if err != nil {
			t.Fatal(err)
		}
		w := f.pulled("/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: pred})
		if ev, ok := w.TryNext(f.ctx); !ok || describe(t, ev) != "ADDED a" {
			t.Fatalf("first TryNext: %v %v, want ADDED a", ok, ev.Type)
		}
		if ev, ok := w.TryNext(f.ctx); ok {
			t.Fatalf("TryNext after the selected start state: %s, want nothing ready", describe(t, ev))
		}
		f.update("ns", "a", "new")
		synctest.Wait()
		if ev, ok := w.TryNext(f.ctx); !ok || describe(t, ev) != "MODIFIED a" {
			t.Errorf("TryNext after a change: %v %v, want MODIFIED a", ok, ev.Type)
		}
		w.Stop()
		if _, ok := w.TryNext(f.ctx); ok {
			t.Error("TryNext after Stop returned an event")
		}
		if _, ok := w.Next(f.ctx); ok {
			t.Error("Next after Stop returned an event")
		}
	})
}
