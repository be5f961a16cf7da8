package fanout

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"

	"github.com/kapi-dev/kapi/internal/leakcheck"
)

func TestMain(m *testing.M) {
	// The real informers of these tests must stop with them.
	leakcheck.Main(m, "k8s.io/client-go/tools/cache.")
}

// recorder is a handler that writes down what it is told.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

func (r *recorder) OnAdd(obj any, initial bool) {
	r.add("add %s initial=%v", name(obj), initial)
}
func (r *recorder) OnUpdate(old, cur any) { r.add("update %s->%s", name(old), name(cur)) }
func (r *recorder) OnDelete(obj any)      { r.add("delete %s", name(obj)) }

func (r *recorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// name is an object's name and resourceVersion, "a@2".
func name(obj any) string {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	m := obj.(metav1.Object)
	return m.GetName() + "@" + m.GetResourceVersion()
}

func cm(n, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: "ns", ResourceVersion: rv}}
}

// fakeInformer stands for a client-go informer whose deliveries the test
// makes itself: its store may be ahead of what its handler was told, as a
// real informer's is.
type fakeInformer struct {
	cache.SharedIndexInformer
	handlers []cache.ResourceEventHandler
	synced   bool
}

func (f *fakeInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	f.handlers = append(f.handlers, h)
	return fakeRegistration{f}, nil
}
func (f *fakeInformer) IsStopped() bool { return false }

type fakeRegistration struct{ f *fakeInformer }

func (r fakeRegistration) HasSynced() bool                     { return r.f.synced }
func (r fakeRegistration) HasSyncedChecker() cache.DoneChecker { return nil }

// TestLateHandlerReplaysWhatWasDelivered: a handler added late sees the
// objects as the fan-out delivered them (as adds in the initial list),
// then the deliveries after, each once; one registration is made on the
// informer however many handlers are added.
func TestLateHandlerReplaysWhatWasDelivered(t *testing.T) {
	inner := &fakeInformer{}
	f := New(inner)
	first := &recorder{}
	reg1, err := f.AddEventHandler(first)
	if err != nil {
		t.Fatal(err)
	}
	if len(inner.handlers) != 1 {
		t.Fatalf("registrations on the informer = %d, want 1", len(inner.handlers))
	}
	d := inner.handlers[0]
	d.OnAdd(cm("a", "1"), true)
	d.OnAdd(cm("b", "2"), true)
	d.OnUpdate(cm("a", "1"), cm("a", "3"))
	d.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/b", Obj: cm("b", "2")})
	inner.synced = true

	late := &recorder{}
	reg2, err := f.AddEventHandler(late)
	if err != nil {
		t.Fatal(err)
	}
	if len(inner.handlers) != 1 {
		t.Fatalf("registrations on the informer = %d, want 1", len(inner.handlers))
	}
	if want := []string{"add a@3 initial=true"}; !slices.Equal(late.got(), want) {
		t.Errorf("late handler's replay = %q, want %q", late.got(), want)
	}
	if !reg1.HasSynced() || !reg2.HasSynced() {
		t.Errorf("HasSynced = %v, %v after the informer synced, want true, true", reg1.HasSynced(), reg2.HasSynced())
	}
	d.OnAdd(cm("c", "4"), false)
	want := []string{"add a@1 initial=true", "add b@2 initial=true", "update a@1->a@3", "delete b@2", "add c@4 initial=false"}
	if !slices.Equal(first.got(), want) {
		t.Errorf("first handler saw %q, want %q", first.got(), want)
	}
	if want := []string{"add a@3 initial=true", "add c@4 initial=false"}; !slices.Equal(late.got(), want) {
		t.Errorf("late handler saw %q, want %q", late.got(), want)
	}

	if err := f.RemoveEventHandler(reg1); err != nil {
		t.Fatal(err)
	}
	d.OnDelete(cm("c", "4"))
	if n := len(first.got()); n != len(want) {
		t.Errorf("removed handler was called: %q", first.got()[len(want):])
	}
	if got := late.got(); got[len(got)-1] != "delete c@4" {
		t.Errorf("late handler's last event = %q, want the delete of c", got[len(got)-1])
	}
}

// TestSharedInformer runs the fan-out over a real client-go informer: a
// handler added before the start and one added after it both see the
// initial list and the changes, and sync.
func TestSharedInformer(t *testing.T) {
	source := fcache.NewFakeControllerSource()
	t.Cleanup(source.Shutdown)
	source.Add(cm("a", ""))
	source.Add(cm("b", ""))
	var set Set
	inf := cache.NewSharedIndexInformer(source, &corev1.ConfigMap{}, 0, cache.Indexers{})
	f := set.Wrap(inf)
	// client-go's typed accessors wrap one informer anew at each call.
	typed := cache.NewTypedSharedIndexInformer[*corev1.ConfigMap](inf)
	if set.Wrap(inf) != f || set.Wrap(f) != f || set.Wrap(typed) != f {
		t.Fatal("Wrap of one informer made two fan-outs")
	}
	early := &recorder{}
	regEarly, err := f.AddEventHandler(early)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	if !cache.WaitForCacheSync(ctx.Done(), regEarly.HasSynced) {
		t.Fatal("early handler never synced")
	}
	if got := early.got(); len(got) != 2 {
		t.Fatalf("early handler saw %q at sync, want the two adds", got)
	}

	late := &recorder{}
	regLate, err := f.AddEventHandler(late)
	if err != nil {
		t.Fatal(err)
	}
	if !regLate.HasSynced() {
		t.Error("late handler not synced once added to a synced informer")
	}
	got := late.got()
	slices.Sort(got)
	if want := []string{"add a@1 initial=true", "add b@2 initial=true"}; !slices.Equal(got, want) {
		t.Errorf("late handler's replay = %q, want %q", got, want)
	}

	source.Modify(cm("a", ""))
	source.Delete(cm("b", ""))
	for _, r := range []*recorder{early, late} {
		if err := wait.PollUntilContextCancel(ctx, time.Millisecond, true, func(context.Context) (bool, error) {
			return len(r.got()) == 4, nil
		}); err != nil {
			t.Fatal(err)
		}
		if tail := r.got()[2:]; !slices.Equal(tail, []string{"update a@1->a@3", "delete b@4"}) {
			t.Errorf("after the initial list a handler saw %q, want the update of a and the delete of b", tail)
		}
	}
}

// TestStoppedInformer: like client-go, a stopped informer takes no new
// handler.
func TestStoppedInformer(t *testing.T) {
	source := fcache.NewFakeControllerSource()
	t.Cleanup(source.Shutdown)
	inf := cache.NewSharedIndexInformer(source, &corev1.ConfigMap{}, 0, cache.Indexers{})
	f := New(inf)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); inf.RunWithContext(ctx) }()
	cancel()
	<-done
	if _, err := f.AddEventHandler(&recorder{}); err == nil {
		t.Error("AddEventHandler on a stopped informer: no error")
	}
}
