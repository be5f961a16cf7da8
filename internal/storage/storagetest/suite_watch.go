package storagetest

import (
	"context"
	"net/http"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
)

var watchTests = map[string]func(*testing.T, *fixture){
	"FromNow": func(t *testing.T, f *fixture) {
		f.create(t, "ns", "old", nil)
		w := f.watchPrefix(t, "/configmaps", storage.ListOptions{ResourceVersion: "0", SendInitialEvents: ptr(false)})
		created := f.create(t, "ns", "a", nil)
		expectEvent(t, w, watch.Added, "ns", "a", created.ResourceVersion)
		updated := f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["key"] = "new" })
		expectEvent(t, w, watch.Modified, "ns", "a", updated.ResourceVersion)
		deleted := f.delete(t, "ns", "a")
		got := expectEvent(t, w, watch.Deleted, "ns", "a", deleted.ResourceVersion)
		if got.Data["key"] != "new" {
			t.Errorf("DELETED event carries data %v, want the last state", got.Data)
		}
	},
	"FromResourceVersion": func(t *testing.T, f *fixture) {
		created := f.create(t, "ns", "a", nil)
		updated := f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["key"] = "new" })
		w := f.watchPrefix(t, "/configmaps", storage.ListOptions{ResourceVersion: created.ResourceVersion})
		expectEvent(t, w, watch.Modified, "ns", "a", updated.ResourceVersion)
		b := f.create(t, "ns", "b", nil)
		expectEvent(t, w, watch.Added, "ns", "b", b.ResourceVersion)
	},
	"FromZeroSendsState": func(t *testing.T, f *fixture) {
		for _, rv := range []string{"0", ""} {
			t.Run("rv="+rv, func(t *testing.T) {
				ns := "ns" + rv
				a := f.create(t, ns, "a", nil)
				w := f.watchPrefix(t, "/configmaps/"+ns, storage.ListOptions{ResourceVersion: rv})
				expectEvent(t, w, watch.Added, ns, "a", a.ResourceVersion)
				b := f.create(t, ns, "b", nil)
				expectEvent(t, w, watch.Added, ns, "b", b.ResourceVersion)
			})
		}
	},
	"PrefixAndSingleKey": func(t *testing.T, f *fixture) {
		prefix := f.watchPrefix(t, "/configmaps/a", storage.ListOptions{ResourceVersion: "0", SendInitialEvents: ptr(false)})
		single := f.watch(t, ConfigMapKey("a", "x"), storage.ListOptions{ResourceVersion: "0", SendInitialEvents: ptr(false)})
		f.create(t, "ab", "x", nil) // shares a name prefix with namespace "a"
		f.create(t, "a", "xy", nil) // shares a name prefix with a/x
		x := f.create(t, "a", "x", nil)
		expectEvent(t, prefix, watch.Added, "a", "xy", "")
		expectEvent(t, prefix, watch.Added, "a", "x", x.ResourceVersion)
		expectEvent(t, single, watch.Added, "a", "x", x.ResourceVersion)
	},
	"Predicate": func(t *testing.T, f *fixture) {
		pred, err := Predicate("app=web", "")
		if err != nil {
			t.Fatal(err)
		}
		w := f.watchPrefix(t, "/configmaps", storage.ListOptions{ResourceVersion: "0", SendInitialEvents: ptr(false), Predicate: pred})
		web := map[string]string{"app": "web"}
		f.create(t, "ns", "db", map[string]string{"app": "db"}) // never selected
		a := f.create(t, "ns", "a", web)
		expectEvent(t, w, watch.Added, "ns", "a", a.ResourceVersion)
		left := f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Labels["app"] = "db" })
		got := expectEvent(t, w, watch.Deleted, "ns", "a", left.ResourceVersion)
		if got.Labels["app"] != "web" {
			t.Errorf("DELETED for leaving the selection carries labels %v, want the last selected state", got.Labels)
		}
		f.update(t, "ns", "db", func(cm *corev1.ConfigMap) { cm.Data["key"] = "x" }) // still not selected
		back := f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Labels["app"] = "web" })
		expectEvent(t, w, watch.Added, "ns", "a", back.ResourceVersion)
		mod := f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["key"] = "y" })
		expectEvent(t, w, watch.Modified, "ns", "a", mod.ResourceVersion)
		f.delete(t, "ns", "db")
		del := f.delete(t, "ns", "a")
		expectEvent(t, w, watch.Deleted, "ns", "a", del.ResourceVersion)
	},
	"SendInitialEvents": func(t *testing.T, f *fixture) {
		f.create(t, "ns", "a", nil)
		b := f.create(t, "ns", "b", nil)
		pred := storage.Everything
		pred.AllowWatchBookmarks = true
		w := f.watchPrefix(t, "/configmaps", storage.ListOptions{ResourceVersion: "", SendInitialEvents: ptr(true), Predicate: pred})
		expectEvent(t, w, watch.Added, "ns", "a", "")
		expectEvent(t, w, watch.Added, "ns", "b", b.ResourceVersion)
		ev := nextEvent(t, w)
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if ev.Type != watch.Bookmark || !ok || cm.Annotations[metav1.InitialEventsAnnotationKey] != "true" {
			t.Fatalf("got %s %s, want a BOOKMARK annotated %s", ev.Type, describe(ev.Object), metav1.InitialEventsAnnotationKey)
		}
		bookmarkRV, _ := f.store.Versioner().ObjectResourceVersion(cm)
		lastRV, _ := f.store.Versioner().ObjectResourceVersion(b)
		if bookmarkRV < lastRV {
			t.Errorf("bookmark resourceVersion %d is older than the initial state (%d)", bookmarkRV, lastRV)
		}
		c := f.create(t, "ns", "c", nil)
		expectEvent(t, w, watch.Added, "ns", "c", c.ResourceVersion)
	},
	"ProgressBookmark": func(t *testing.T, f *fixture) {
		pr, ok := f.backend.(ProgressRequester)
		if !ok {
			t.Skip("backend cannot be asked for progress")
		}
		// etcd only answers progress requests once every watch on the stream
		// has caught up with the current revision, so start in the past.
		a := f.create(t, "ns", "a", nil)
		// A progress notification asked for now may reach a watch cache
		// after a and before b; the watch may pass it on as a bookmark at
		// its start revision, as kube-apiserver's cache does.
		if err := pr.RequestProgress(f.ctx); err != nil {
			t.Fatalf("RequestProgress: %v", err)
		}
		b := f.create(t, "ns", "b", nil)
		pred := storage.Everything
		pred.AllowWatchBookmarks = true
		w := f.watchPrefix(t, "/configmaps", storage.ListOptions{ResourceVersion: a.ResourceVersion, ProgressNotify: true, Predicate: pred})
		expectAddedAfterBookmarks(t, f, w, b)
		// A watch registers asynchronously in some backends, so keep asking
		// until the notification arrives.
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(eventTimeout)
		for {
			if err := pr.RequestProgress(f.ctx); err != nil {
				t.Fatalf("RequestProgress: %v", err)
			}
			select {
			case ev := <-w.ResultChan():
				ev = unwrapEvent(ev)
				cm, ok := ev.Object.(*corev1.ConfigMap)
				if ev.Type != watch.Bookmark || !ok || cm.Name != "" {
					t.Fatalf("got %s %s, want a BOOKMARK with only a resourceVersion", ev.Type, describe(ev.Object))
				}
				got, _ := f.store.Versioner().ObjectResourceVersion(cm)
				want, _ := f.store.Versioner().ObjectResourceVersion(b)
				if got < want {
					t.Errorf("bookmark at resourceVersion %d, before the last event (%d)", got, want)
				}
				return
			case <-tick.C:
			case <-deadline:
				t.Fatal("no bookmark after progress requests")
			}
		}
	},
	"ContextCancelCloses": func(t *testing.T, f *fixture) {
		ctx, cancel := context.WithCancel(f.ctx)
		w, err := f.store.Watch(ctx, "/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: storage.Everything})
		if err != nil {
			t.Fatalf("Watch: %v", err)
		}
		cancel()
		expectClosed(t, w)
	},
	"StopCloses": func(t *testing.T, f *fixture) {
		w := f.watchPrefix(t, "/configmaps", storage.ListOptions{ResourceVersion: "0"})
		w.Stop()
		expectClosed(t, w)
		w.Stop() // a second Stop is harmless
	},
	"TooOldResourceVersion": func(t *testing.T, f *fixture) {
		c := compactor(t, f)
		a := f.create(t, "ns", "a", nil)
		f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["key"] = "1" })
		f.update(t, "ns", "a", func(cm *corev1.ConfigMap) { cm.Data["key"] = "2" })
		if err := c.Compact(f.ctx, int64(f.currentRV(t))); err != nil {
			t.Fatalf("Compact: %v", err)
		}
		opts := storage.ListOptions{ResourceVersion: a.ResourceVersion, Recursive: true, Predicate: storage.Everything}
		w, err := f.store.Watch(f.ctx, "/configmaps", opts)
		if err != nil {
			wantCode(t, err, storage.ErrCodeExpired)
			return
		}
		defer w.Stop()
		ev := nextEvent(t, w)
		st, ok := ev.Object.(*metav1.Status)
		if ev.Type != watch.Error || !ok || st.Code != http.StatusGone || st.Reason != metav1.StatusReasonExpired {
			t.Fatalf("got %s %s, want an ERROR with a 410 Expired status", ev.Type, describe(ev.Object))
		}
		expectClosed(t, w)
	},
}

// watchPrefix watches every key under prefix until the test ends.
func (f *fixture) watchPrefix(t *testing.T, prefix string, opts storage.ListOptions) watch.Interface {
	t.Helper()
	opts.Recursive = true
	return f.watch(t, prefix, opts)
}

// watch starts a watch that stops when the test ends. A predicate without
// selectors becomes storage.Everything.
func (f *fixture) watch(t *testing.T, key string, opts storage.ListOptions) watch.Interface {
	t.Helper()
	if opts.Predicate.Label == nil && opts.Predicate.Field == nil {
		allow := opts.Predicate.AllowWatchBookmarks
		opts.Predicate = storage.Everything
		opts.Predicate.AllowWatchBookmarks = allow
	}
	w, err := f.store.Watch(f.ctx, key, opts)
	if err != nil {
		t.Fatalf("Watch %s: %v", key, err)
	}
	t.Cleanup(w.Stop)
	return w
}

// expectAddedAfterBookmarks waits for the ADDED event of want, passing
// over bookmarks older than it.
func expectAddedAfterBookmarks(t *testing.T, f *fixture, w watch.Interface, want *corev1.ConfigMap) {
	t.Helper()
	wantRV, _ := f.store.Versioner().ObjectResourceVersion(want)
	for {
		ev := nextEvent(t, w)
		if ev.Type != watch.Bookmark {
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if ev.Type != watch.Added || !ok || cm.Namespace != want.Namespace || cm.Name != want.Name || cm.ResourceVersion != want.ResourceVersion {
				t.Fatalf("got event %s %s, want ADDED %s/%s@%s", ev.Type, describe(ev.Object), want.Namespace, want.Name, want.ResourceVersion)
			}
			return
		}
		if rv, _ := f.store.Versioner().ObjectResourceVersion(ev.Object); rv >= wantRV {
			t.Fatalf("BOOKMARK at resourceVersion %d came before ADDED %s/%s@%d", rv, want.Namespace, want.Name, wantRV)
		}
	}
}
