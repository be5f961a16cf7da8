package cacher

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// seen is a watch event reduced to what the comparison needs.
type seen struct {
	Type watch.EventType
	Pod  string // namespace/name
	Node string
	RV   string
}

// drain returns the events w has ready; inside the synctest bubble, once
// every goroutine is blocked nothing else is coming.
func drain(t *testing.T, w watch.Interface) []seen {
	t.Helper()
	var out []seen
	ch := w.ResultChan() // starts the watcher's goroutine before the first wait
	for {
		synctest.Wait()
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			obj := ev.Object
			if co, ok := obj.(runtime.CacheableObject); ok {
				obj = co.GetObject()
			}
			pod, ok := obj.(*corev1.Pod)
			if !ok {
				t.Fatalf("%s event carries %T", ev.Type, ev.Object)
			}
			out = append(out, seen{ev.Type, pod.Namespace + "/" + pod.Name, pod.Spec.NodeName, pod.ResourceVersion})
		default:
			return out
		}
	}
}

// TestIndexedWatchesMatchStorage opens the same watches (namespaces, one
// object, metadata.name and spec.nodeName selectors, a selector the index
// cannot use) on the cache and on the storage below it, moves pods between
// nodes, and checks every watch sees exactly the events storage's own
// watch sends, including the ADDED and DELETED of pods moving into and out
// of a node's selection. When the watches stop, the index is empty.
func TestIndexedWatchesMatchStorage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		b := memory.New()
		defer b.Close()
		inner, err := b.ForResource(podResource())
		if err != nil {
			t.Fatal(err)
		}
		res := podResource()
		c, err := New(Config{Storage: inner, ResourcePrefix: res.ResourcePrefix, NewFunc: res.NewFunc,
			NewListFunc: res.NewListFunc, ProgressInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Stop()
		if err := c.WaitReady(ctx); err != nil {
			t.Fatal(err)
		}
		watches := []struct {
			key       string
			recursive bool
			field     string
		}{
			{"/pods", true, ""},
			{"/pods/ns1", true, ""},
			{"/pods", true, "spec.nodeName=node-1"},
			{"/pods", true, "spec.nodeName=node-2"},
			{"/pods/ns1", true, "spec.nodeName=node-1"},
			{"/pods", true, "spec.nodeName="},
			{"/pods/ns1", true, "metadata.name=p"},
			{"/pods", true, "metadata.name=q,spec.nodeName=node-1"},
			{"/pods", true, "spec.nodeName!=node-1"},
			{"/pods/ns1/p", false, ""},
			{"/pods/ns1/p", false, "spec.nodeName=node-2"},
		}
		type pair struct{ cached, direct watch.Interface }
		var pairs []pair
		for _, wt := range watches {
			fs, err := fields.ParseSelector(wt.field)
			if err != nil {
				t.Fatal(err)
			}
			opts := storage.ListOptions{ResourceVersion: "0", SendInitialEvents: new(false), Recursive: wt.recursive,
				Predicate: storage.SelectionPredicate{Label: labels.Everything(), Field: fs, GetAttrs: podAttrs}}
			cw, err := c.Watch(ctx, wt.key, opts)
			if err != nil {
				t.Fatal(err)
			}
			dw, err := inner.Watch(ctx, wt.key, opts)
			if err != nil {
				t.Fatal(err)
			}
			pairs = append(pairs, pair{cw, dw})
		}
		movePods(ctx, t, inner)
		synctest.Wait()
		for i, p := range pairs {
			want, got := drain(t, p.direct), drain(t, p.cached)
			if len(want) == 0 {
				t.Errorf("watch %+v: storage sent nothing, the test does not exercise it", watches[i])
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("watch %+v (-storage +cache):\n%s", watches[i], diff)
			}
			p.cached.Stop()
			p.direct.Stop()
		}
		synctest.Wait()
		c.dispatcher.mu.Lock()
		defer c.dispatcher.mu.Unlock()
		if n, k, f := len(c.dispatcher.watchers), len(c.dispatcher.index.byKey), len(c.dispatcher.index.fields); n+k+f != 0 {
			t.Errorf("after every watch stopped: %d watchers, %d keys and %d fields indexed, want none", n, k, f)
		}
	})
}

// movePods creates pods, binds them, moves one between nodes and deletes.
func movePods(ctx context.Context, t *testing.T, s storage.Interface) {
	t.Helper()
	setNode := func(ns, name, node string) {
		err := s.GuaranteedUpdate(ctx, "/pods/"+ns+"/"+name, &corev1.Pod{}, false, nil,
			func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
				pod := in.(*corev1.Pod).DeepCopy()
				pod.Spec.NodeName = node
				return pod, nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []struct{ ns, name string }{{"ns1", "p"}, {"ns1", "q"}, {"ns2", "p"}, {"ns2", "q"}} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, Name: p.name}}
		if err := s.Create(ctx, "/pods/"+p.ns+"/"+p.name, pod, nil); err != nil {
			t.Fatal(err)
		}
	}
	setNode("ns1", "p", "node-1")
	setNode("ns2", "q", "node-1")
	setNode("ns1", "q", "node-2")
	setNode("ns1", "p", "node-2") // leaves node-1's selection, enters node-2's
	setNode("ns2", "p", "node-1")
	for i, p := range []struct{ ns, name string }{{"ns1", "p"}, {"ns2", "q"}} {
		if err := s.Delete(ctx, "/pods/"+p.ns+"/"+p.name, &corev1.Pod{}, nil, nil); err != nil {
			t.Fatal(fmt.Errorf("delete %d: %w", i, err))
		}
	}
}

// TestIndexReadsFieldsOnlyWhereIndexedWatchersAre: a change reads its
// object's fields only when one of its keys has watchers filed by field.
// The object of a change under no such key is never asked for them (a
// ConfigMap in a namespace while a watcher selects one ConfigMap by name in
// kube-system), and indexed watchers still get theirs.
func TestIndexReadsFieldsOnlyWhereIndexedWatchersAre(t *testing.T) {
	reads := 0
	attrs := func(obj runtime.Object) (labels.Set, fields.Set, error) {
		reads++
		m := obj.(metav1.Object)
		return labels.Set(m.GetLabels()), fields.Set{"metadata.name": m.GetName()}, nil
	}
	x := newWatcherIndex()
	byName := &cacheWatcher{key: "/configmaps/kube-system/", recursive: true, pred: storage.SelectionPredicate{
		Label: labels.Everything(), Field: fields.OneTermEqualSelector("metadata.name", "wanted"), GetAttrs: attrs}}
	everything := &cacheWatcher{key: "/configmaps/", recursive: true, pred: storage.Everything}
	x.add(byName)
	x.add(everything)
	change := func(ns, name string) *event {
		return &event{typ: watch.Added, key: "/configmaps/" + ns + "/" + name,
			obj: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}}
	}
	cases := []struct {
		ev        *event
		want      []*cacheWatcher
		wantReads int
	}{
		{change("apps", "wanted"), []*cacheWatcher{everything}, 0},
		{change("kube-system", "other"), []*cacheWatcher{everything}, 1},
		{change("kube-system", "wanted"), []*cacheWatcher{everything, byName}, 1},
	}
	for _, tc := range cases {
		reads = 0
		got := x.interested(tc.ev, nil)
		if !cmp.Equal(got, tc.want, cmp.Comparer(func(a, b *cacheWatcher) bool { return a == b })) {
			t.Errorf("%s: %d watchers %v, want %d", tc.ev.key, len(got), got, len(tc.want))
		}
		if reads != tc.wantReads {
			t.Errorf("%s: the object's fields were read %d times, want %d", tc.ev.key, reads, tc.wantReads)
		}
	}
}
