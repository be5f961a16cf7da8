package inprocess

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/registry/core/configmap"
	coreevent "github.com/kapi-dev/kapi/internal/registry/core/event"
	eventsevent "github.com/kapi-dev/kapi/internal/registry/events/event"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage/cacher"
)

// fixture is a Resources with ConfigMaps, core/v1 Events and
// events.k8s.io/v1 Events (over the core storage) bound, on memory.
type fixture struct {
	r          *Resources
	configMaps *configmap.REST
	events     *coreevent.REST
}

func newFixture(t *testing.T) fixture { return newFixtureOn(t, false) }

// newFixtureOn puts a watch cache in front of memory when cached is set.
func newFixtureOn(t *testing.T, cached bool) fixture {
	t.Helper()
	scheme := registrytest.NewScheme(t)
	getter := registrytest.NewOptionsGetter(t, scheme)
	if cached {
		b := cacher.NewBackend(getter.Backend, cacher.Options{})
		t.Cleanup(func() { _ = b.Close() })
		getter.Backend = b
	}
	cms, err := configmap.NewREST(scheme, getter)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := coreevent.NewREST(scheme, getter)
	if err != nil {
		t.Fatal(err)
	}
	r := NewResources(scheme)
	r.Bind(corev1.SchemeGroupVersion, map[string]rest.Storage{"configmaps": cms, "configmaps/status": cms, "events": evs})
	r.Bind(eventsv1.SchemeGroupVersion, eventsevent.NewStorage(evs))
	return fixture{r: r, configMaps: cms, events: evs}
}

func (f fixture) createConfigMap(t *testing.T, ns, name string, labels map[string]string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Data: map[string]string{"k": name}}
	if _, err := f.configMaps.Create(registrytest.NamespaceContext(ns), cm, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestListIsTheHandlersList: options are checked and mapped as the HTTP
// handlers do, the namespace and the tweak narrow the list, and the items
// come without kind, as client-go decodes them.
func TestListIsTheHandlersList(t *testing.T) {
	f := newFixture(t)
	f.createConfigMap(t, "a", "one", map[string]string{"app": "x"})
	f.createConfigMap(t, "a", "two", nil)
	f.createConfigMap(t, "b", "three", map[string]string{"app": "x"})

	tests := []struct {
		name      string
		namespace string
		tweak     func(*metav1.ListOptions)
		opts      metav1.ListOptions
		want      []string
		wantErr   func(error) bool
	}{
		{name: "all namespaces", want: []string{"a/one", "a/two", "b/three"}},
		{name: "one namespace", namespace: "a", want: []string{"a/one", "a/two"}},
		{name: "tweak", tweak: func(o *metav1.ListOptions) { o.LabelSelector = "app=x" }, want: []string{"a/one", "b/three"}},
		{name: "field selector", opts: metav1.ListOptions{FieldSelector: "metadata.name=two"}, want: []string{"a/two"}},
		{name: "unsupported field label", opts: metav1.ListOptions{FieldSelector: "spec.x=y"}, wantErr: apierrors.IsBadRequest},
		{name: "bad label selector", opts: metav1.ListOptions{LabelSelector: "a=(b"}, wantErr: apierrors.IsBadRequest},
		{name: "invalid options", opts: metav1.ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchExact}, wantErr: apierrors.IsInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lw := f.r.ListerWatcher(&corev1.ConfigMap{}, tt.namespace, tt.tweak)
			obj, err := lw.List(tt.opts)
			if tt.wantErr != nil {
				if !tt.wantErr(err) {
					t.Fatalf("List: got error %v, want another", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			list, ok := obj.(*corev1.ConfigMapList)
			if !ok {
				t.Fatalf("List returned %T, want *v1.ConfigMapList", obj)
			}
			var got []string
			for _, cm := range list.Items {
				got = append(got, cm.Namespace+"/"+cm.Name)
				if gvk := cm.GroupVersionKind(); !gvk.Empty() {
					t.Errorf("item %s has kind %v, want none", cm.Name, gvk)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("listed %v, want %v", got, tt.want)
			}
			if list.ResourceVersion == "" {
				t.Error("the list has no resourceVersion")
			}
		})
	}
}

// TestUnboundKindIsNotFound: a kind no storage was bound for answers as
// the server's 404 would, so its informer backs off as over HTTP.
func TestUnboundKindIsNotFound(t *testing.T) {
	f := newFixture(t)
	lw := f.r.ListerWatcher(&corev1.Secret{}, "", nil)
	if _, err := lw.List(metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("List: got %v, want NotFound", err)
	}
	if _, err := lw.Watch(metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Watch: got %v, want NotFound", err)
	}
}

// TestInformerFollowsChanges runs a client-go informer over the lister
// and watcher: it sees what exists, then each change, as objects of its
// own type without kind.
func TestInformerFollowsChanges(t *testing.T) {
	for _, cached := range []bool{false, true} {
		t.Run(fmt.Sprintf("cached=%v", cached), func(t *testing.T) { testInformerFollowsChanges(t, newFixtureOn(t, cached)) })
	}
}

func testInformerFollowsChanges(t *testing.T, f fixture) {
	f.createConfigMap(t, "a", "before", nil)
	inf := f.r.NewInformer(&corev1.ConfigMap{}, "a", nil, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	f.createConfigMap(t, "a", "after", nil)
	f.createConfigMap(t, "b", "elsewhere", nil)
	waitFor(t, func() bool { _, ok, _ := inf.GetStore().GetByKey("a/after"); return ok })
	if _, ok, _ := inf.GetStore().GetByKey("b/elsewhere"); ok {
		t.Error("the informer of namespace a holds b/elsewhere")
	}
	for _, obj := range inf.GetStore().List() {
		cm := obj.(*corev1.ConfigMap)
		if gvk := cm.GroupVersionKind(); !gvk.Empty() {
			t.Errorf("%s has kind %v, want none", cm.Name, gvk)
		}
	}
	if _, _, err := f.configMaps.Delete(registrytest.NamespaceContext("a"), "before", rest.ValidateAllObjectFunc, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, ok, _ := inf.GetStore().GetByKey("a/before"); return !ok })
}

// TestOtherVersionIsConverted: events.k8s.io/v1 Events are stored as
// core/v1 Events; the informer gets its own kind, converted.
func TestOtherVersionIsConverted(t *testing.T) {
	f := newFixture(t)
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "e1", Namespace: "a"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: "a"},
		Reason:         "Started", Message: "hello", Type: corev1.EventTypeNormal,
		ReportingController: "kapi/test", ReportingInstance: "i1", Action: "Start",
		EventTime: metav1.NewMicroTime(time.Now()),
	}
	if _, err := f.events.Create(registrytest.NamespaceContext("a"), ev, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	lw := f.r.ListerWatcher(&eventsv1.Event{}, "", nil)
	obj, err := lw.List(metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list, ok := obj.(*eventsv1.EventList)
	if !ok || len(list.Items) != 1 {
		t.Fatalf("List returned %#v, want one events.k8s.io/v1 Event", obj)
	}
	if got := list.Items[0]; got.Note != "hello" || got.Regarding.Name != "p" {
		t.Errorf("converted event: note %q regarding %q, want hello and p", got.Note, got.Regarding.Name)
	}

	w, err := lw.Watch(metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev2 := ev.DeepCopy()
	ev2.Name, ev2.Message = "e2", "again"
	if _, err := f.events.Create(registrytest.NamespaceContext("a"), ev2, rest.ValidateAllObjectFunc, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := nextEvent(t, w)
	e, ok := got.Object.(*eventsv1.Event)
	if got.Type != watch.Added || !ok || e.Note != "again" {
		t.Fatalf("watch event %s %T, want ADDED of an events.k8s.io/v1 Event with note again", got.Type, got.Object)
	}
	if gvk := e.GroupVersionKind(); !gvk.Empty() {
		t.Errorf("watched event has kind %v, want none", gvk)
	}
}

// TestWatchStopEndsItsGoroutine: Stop returns once the stream's goroutine
// is gone and its channel is closed.
func TestWatchStopEndsItsGoroutine(t *testing.T) {
	f := newFixture(t)
	w, err := f.r.ListerWatcher(&corev1.ConfigMap{}, "", nil).Watch(metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	w.Stop()
	if _, open := <-w.ResultChan(); open {
		t.Error("the result channel is open after Stop")
	}
}

func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch ended")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event in 10s")
	}
	return watch.Event{}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
