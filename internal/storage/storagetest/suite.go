package storagetest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
)

// Compactor is implemented by backends that can discard history on demand;
// the suite uses it to test expired resourceVersions.
type Compactor interface {
	Compact(ctx context.Context, rev int64) error
}

// ProgressRequester is implemented by backends that can be asked to send
// watch progress notifications; the suite uses it to test bookmarks.
type ProgressRequester interface {
	RequestProgress(ctx context.Context) error
}

// eventTimeout bounds how long the suite waits for an expected watch event
// so that a missing event fails the test instead of hanging it.
const eventTimeout = 30 * time.Second

// RunTests runs the conformance suite. newBackend must return a fresh,
// empty key space (a new backend or a unique prefix) and close it in
// t.Cleanup.
func RunTests(t *testing.T, newBackend func(t *testing.T) storage.Backend) {
	groups := []struct {
		name  string
		tests map[string]func(*testing.T, *fixture)
	}{
		{"Create", createTests},
		{"Get", getTests},
		{"Delete", deleteTests},
		{"List", listTests},
		{"Update", updateTests},
		{"Watch", watchTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, name := range slices.Sorted(maps.Keys(g.tests)) {
				t.Run(name, func(t *testing.T) {
					g.tests[name](t, newFixture(t, newBackend(t)))
				})
			}
		})
	}
}

// fixture is one test's backend and configmap store.
type fixture struct {
	backend storage.Backend
	store   storage.Interface
	ctx     context.Context
}

func newFixture(t *testing.T, b storage.Backend) *fixture {
	t.Helper()
	s, err := b.ForResource(ConfigMapResource())
	if err != nil {
		t.Fatalf("ForResource: %v", err)
	}
	return &fixture{backend: b, store: s, ctx: t.Context()}
}

// create stores a configmap and returns it as stored.
func (f *fixture) create(t *testing.T, ns, name string, lbls map[string]string) *corev1.ConfigMap {
	t.Helper()
	in := newConfigMap(ns, name, lbls)
	out := &corev1.ConfigMap{}
	if err := f.store.Create(f.ctx, ConfigMapKey(ns, name), in, out); err != nil {
		t.Fatalf("Create %s/%s: %v", ns, name, err)
	}
	return out
}

// update replaces a configmap's data and labels and returns it as stored.
func (f *fixture) update(t *testing.T, ns, name string, mutate func(*corev1.ConfigMap)) *corev1.ConfigMap {
	t.Helper()
	out := &corev1.ConfigMap{}
	err := f.store.GuaranteedUpdate(f.ctx, ConfigMapKey(ns, name), out, false, nil,
		func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			cm := in.(*corev1.ConfigMap).DeepCopy()
			mutate(cm)
			return cm, nil
		})
	if err != nil {
		t.Fatalf("GuaranteedUpdate %s/%s: %v", ns, name, err)
	}
	return out
}

func (f *fixture) delete(t *testing.T, ns, name string) *corev1.ConfigMap {
	t.Helper()
	out := &corev1.ConfigMap{}
	if err := f.store.Delete(f.ctx, ConfigMapKey(ns, name), out, nil, nil); err != nil {
		t.Fatalf("Delete %s/%s: %v", ns, name, err)
	}
	return out
}

func (f *fixture) currentRV(t *testing.T) uint64 {
	t.Helper()
	rv, err := f.store.CurrentResourceVersion(f.ctx)
	if err != nil {
		t.Fatalf("CurrentResourceVersion: %v", err)
	}
	return rv
}

func newConfigMap(ns, name string, lbls map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: name, Labels: lbls,
			UID: types.UID("uid-" + ns + "-" + name),
		},
		Data: map[string]string{"key": "value"},
	}
}

// nextEvent waits for the next watch event. A watch cache hands out
// shared, encode-caching wrappers; the suite looks at the object inside.
func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch channel closed while waiting for an event")
		}
		return unwrapEvent(ev)
	case <-time.After(eventTimeout):
		t.Fatal("timed out waiting for a watch event")
	}
	return watch.Event{}
}

// expectEvent waits for the next event and checks its type and object.
func expectEvent(t *testing.T, w watch.Interface, typ watch.EventType, ns, name string, rv string) *corev1.ConfigMap {
	t.Helper()
	ev := nextEvent(t, w)
	cm, ok := ev.Object.(*corev1.ConfigMap)
	if ev.Type != typ || !ok || cm.Namespace != ns || cm.Name != name {
		t.Fatalf("got event %s %s, want %s %s/%s", ev.Type, describe(ev.Object), typ, ns, name)
	}
	if rv != "" && cm.ResourceVersion != rv {
		t.Errorf("%s event for %s/%s has resourceVersion %s, want %s", typ, ns, name, cm.ResourceVersion, rv)
	}
	return cm
}

// expectClosed waits for the watch channel to close, draining events.
func expectClosed(t *testing.T, w watch.Interface) {
	t.Helper()
	timeout := time.After(eventTimeout)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("timed out waiting for the watch channel to close")
		}
	}
}

func describe(obj runtime.Object) string {
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		return cm.Namespace + "/" + cm.Name + "@" + cm.ResourceVersion
	}
	if st, ok := obj.(*metav1.Status); ok {
		return "status " + st.Message
	}
	return fmt.Sprintf("%T", obj)
}

// wantCode fails unless err carries the storage error code.
func wantCode(t *testing.T, err error, code storage.ErrorCode) {
	t.Helper()
	if got := storage.CodeOf(err); got != code {
		t.Fatalf("error = %v (code %d), want code %d", err, got, code)
	}
}

// wantTooLarge checks err refuses a read of the future revision rv and
// names it, so the API error can tell the client which one it asked for.
func wantTooLarge(t *testing.T, err error, rv uint64) {
	t.Helper()
	wantCode(t, err, storage.ErrCodeTooLargeResourceVersion)
	var se *storage.Error
	if !errors.As(err, &se) || se.ResourceVersion != int64(rv) {
		t.Errorf("error = %v names resourceVersion %d, want %d", err, se.ResourceVersion, rv)
	}
}

func ptr[T any](v T) *T { return &v }

// unwrapEvent replaces a runtime.CacheableObject by the object it wraps.
func unwrapEvent(ev watch.Event) watch.Event {
	if co, ok := ev.Object.(runtime.CacheableObject); ok {
		ev.Object = co.GetObject()
	}
	return ev
}
