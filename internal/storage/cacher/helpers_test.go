package cacher

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// spyStorage counts what the cache asks of the storage below it and lets a
// test break the cache's underlying watch, ignore progress requests or
// fail lists.
type spyStorage struct {
	storage.Interface
	lists      atomic.Int64
	gets       atomic.Int64
	progress   atomic.Int64
	noProgress atomic.Bool
	failLists  atomic.Bool

	mu      sync.Mutex
	watches []watch.Interface
}

func (s *spyStorage) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	s.lists.Add(1)
	if s.failLists.Load() {
		return storage.NewError(storage.ErrCodeUnreachable, key, 0, "storage is down")
	}
	return s.Interface.GetList(ctx, key, opts, listObj)
}

func (s *spyStorage) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	s.gets.Add(1)
	return s.Interface.Get(ctx, key, opts, out)
}

func (s *spyStorage) RequestWatchProgress(ctx context.Context) error {
	s.progress.Add(1)
	if s.noProgress.Load() {
		return nil
	}
	return s.Interface.RequestWatchProgress(ctx)
}

func (s *spyStorage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	w, err := s.Interface.Watch(ctx, key, opts)
	if err == nil {
		s.mu.Lock()
		s.watches = append(s.watches, w)
		s.mu.Unlock()
	}
	return w, err
}

// breakWatches ends every watch started so far, as a lost etcd connection
// would.
func (s *spyStorage) breakWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.watches {
		w.Stop()
	}
	s.watches = nil
}

// fixture is a cache over a spied memory store, with a second resource on
// the same store to move the revision without touching the cached one.
type fixture struct {
	t       *testing.T
	ctx     context.Context
	backend *memory.Backend
	spy     *spyStorage
	other   storage.Interface // secrets-like second resource, same revision counter
	c       *Cacher
	bumps   int
	// reg holds the cache's metrics unless the test gave its own.
	reg *prometheus.Registry
}

// newFixture starts a cache with cfg (Storage and the resource fields are
// filled in) and waits until it is ready. Call it inside synctest.Test when
// the test depends on time.
func newFixture(t *testing.T, cfg Config) *fixture {
	t.Helper()
	b := memory.New()
	t.Cleanup(func() { _ = b.Close() })
	res := storagetest.ConfigMapResource()
	s, err := b.ForResource(res)
	if err != nil {
		t.Fatal(err)
	}
	other := res
	other.ResourcePrefix = "/others"
	o, err := b.ForResource(other)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ctx: t.Context(), backend: b, spy: &spyStorage{Interface: s}, other: o, reg: prometheus.NewRegistry()}
	if cfg.Metrics == nil {
		m, err := metrics.New(f.reg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Metrics = m.WatchCache(schema.GroupResource{Resource: "configmaps"})
	}
	cfg.Storage = f.spy
	cfg.ResourcePrefix, cfg.NewFunc, cfg.NewListFunc = res.ResourcePrefix, res.NewFunc, res.NewListFunc
	if cfg.ProgressInterval == 0 {
		cfg.ProgressInterval = -1 // tests ask for progress explicitly
	}
	f.c, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.c.Stop)
	if err := f.c.WaitReady(f.ctx); err != nil {
		t.Fatal(err)
	}
	return f
}

// metric sums the values of family in the fixture's registry (counters,
// gauges, and the sample counts of histograms) over the series whose
// labels include the name=value pairs of labels.
func (f *fixture) metric(family string, labels ...string) float64 {
	f.t.Helper()
	families, err := f.reg.Gather()
	if err != nil {
		f.t.Fatal(err)
	}
	var sum float64
	for _, mf := range families {
		if mf.GetName() != family {
			continue
		}
	series:
		for _, m := range mf.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for i := 0; i+1 < len(labels); i += 2 {
				if have[labels[i]] != labels[i+1] {
					continue series
				}
			}
			sum += m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum
}

func configMap(ns, name string, lbls map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls, UID: types.UID("uid-" + ns + "-" + name)},
		Data:       map[string]string{"key": "value"},
	}
}

// create writes a configmap through the cache.
func (f *fixture) create(ns, name string) *corev1.ConfigMap {
	f.t.Helper()
	out := &corev1.ConfigMap{}
	if err := f.c.Create(f.ctx, storagetest.ConfigMapKey(ns, name), configMap(ns, name, nil), out); err != nil {
		f.t.Fatalf("Create %s/%s: %v", ns, name, err)
	}
	return out
}

// update sets data[key]=value through the cache.
func (f *fixture) update(ns, name, value string) *corev1.ConfigMap {
	f.t.Helper()
	out := &corev1.ConfigMap{}
	err := f.c.GuaranteedUpdate(f.ctx, storagetest.ConfigMapKey(ns, name), out, false, nil,
		func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			cm := in.(*corev1.ConfigMap).DeepCopy()
			cm.Data["key"] = value
			return cm, nil
		})
	if err != nil {
		f.t.Fatalf("update %s/%s: %v", ns, name, err)
	}
	return out
}

// bumpRevision writes to the other resource, moving the shared revision
// without an event for the cached resource. It returns the new revision.
func (f *fixture) bumpRevision() uint64 {
	f.t.Helper()
	out := &corev1.ConfigMap{}
	f.bumps++
	name := fmt.Sprintf("bump-%d", f.bumps)
	if err := f.other.Create(f.ctx, "/others/ns/"+name, configMap("ns", name, nil), out); err != nil {
		f.t.Fatalf("writing the other resource: %v", err)
	}
	rv, _ := f.c.versioner.ObjectResourceVersion(out)
	return rv
}

func (f *fixture) list(key string, opts storage.ListOptions) *corev1.ConfigMapList {
	f.t.Helper()
	if opts.Predicate.Label == nil {
		limit, cont := opts.Predicate.Limit, opts.Predicate.Continue
		opts.Predicate = storage.Everything
		opts.Predicate.Limit, opts.Predicate.Continue = limit, cont
	}
	list := &corev1.ConfigMapList{}
	if err := f.c.GetList(f.ctx, key, opts, list); err != nil {
		f.t.Fatalf("GetList %s: %v", key, err)
	}
	return list
}

func (f *fixture) watch(key string, opts storage.ListOptions) watch.Interface {
	f.t.Helper()
	w := f.open(key, opts)
	// Start the watcher's goroutine now, as the cache did before watches
	// could be pulled, so that expectNothing means something.
	w.ResultChan()
	return w
}

// open starts a watch (of everything, unless opts selects) and stops it
// when the test ends.
func (f *fixture) open(key string, opts storage.ListOptions) watch.Interface {
	f.t.Helper()
	if opts.Predicate.Label == nil {
		allow := opts.Predicate.AllowWatchBookmarks
		opts.Predicate = storage.Everything
		opts.Predicate.AllowWatchBookmarks = allow
	}
	w, err := f.c.Watch(f.ctx, key, opts)
	if err != nil {
		f.t.Fatalf("Watch %s: %v", key, err)
	}
	f.t.Cleanup(w.Stop)
	return w
}

// next returns the next event, failing when none is ready. Inside a
// synctest bubble, synctest.Wait first lets the cache deliver everything
// it is going to.
func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed, want an event")
		}
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event")
	}
	return watch.Event{}
}

// expectNothing fails when w has an event (or its close) ready. Inside a
// synctest bubble, call synctest.Wait first.
func expectNothing(t *testing.T, w watch.Interface) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		t.Fatalf("got %s (channel open: %v), want nothing yet", ev.Type, ok)
	default:
	}
}

// eventObject unwraps a cachingObject into the configmap it carries.
func eventObject(t *testing.T, ev watch.Event) *corev1.ConfigMap {
	t.Helper()
	obj := ev.Object
	if co, ok := obj.(runtime.CacheableObject); ok {
		obj = co.GetObject()
	}
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		t.Fatalf("%s event carries %T, want a configmap", ev.Type, ev.Object)
	}
	return cm
}

func rvOf(t *testing.T, obj runtime.Object) uint64 {
	t.Helper()
	rv, err := storage.APIObjectVersioner{}.ObjectResourceVersion(obj)
	if err != nil {
		t.Fatal(err)
	}
	return rv
}
