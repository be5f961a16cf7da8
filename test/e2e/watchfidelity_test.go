package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// fidelityObjects is how many configmaps each round of writes touches.
const fidelityObjects = 10

// eventLog records, per object, the events an informer handler saw.
// Updates that do not change the resourceVersion are what a relist replays
// for objects that did not change; a resync-free handler ignores them.
type eventLog struct {
	mu     sync.Mutex
	events map[string][]string
	seen   chan struct{}
}

func newEventLog() *eventLog {
	return &eventLog{events: map[string][]string{}, seen: make(chan struct{}, 1)}
}

func (l *eventLog) add(name, event string) {
	if name == rootCAConfigMap {
		return
	}
	l.mu.Lock()
	l.events[name] = append(l.events[name], event)
	l.mu.Unlock()
	select {
	case l.seen <- struct{}{}:
	default:
	}
}

func (l *eventLog) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			cm := obj.(*corev1.ConfigMap)
			l.add(cm.Name, "add "+cm.ResourceVersion)
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, cm := oldObj.(*corev1.ConfigMap), newObj.(*corev1.ConfigMap)
			if old.ResourceVersion != cm.ResourceVersion {
				l.add(cm.Name, "update "+cm.ResourceVersion)
			}
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			l.add(obj.(*corev1.ConfigMap).Name, "delete")
		},
	}
}

// waitFor waits until the log equals want.
func (l *eventLog) waitFor(t *testing.T, want map[string][]string) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		l.mu.Lock()
		equal := len(l.events) == len(want)
		for name, events := range want {
			equal = equal && slices.Equal(l.events[name], events)
		}
		got := fmt.Sprint(l.events)
		l.mu.Unlock()
		if equal {
			return
		}
		select {
		case <-l.seen:
		case <-deadline:
			t.Fatalf("informer events differ from the writes:\n got %s\nwant %v", got, want)
		}
	}
}

// countingListWatch counts how often the informer fetched the full state:
// a list, or a watch that asks for the initial events.
type countingListWatch struct {
	*cache.ListWatch
	fullFetches atomic.Int32
}

func (c *countingListWatch) List(opts metav1.ListOptions) (runtime.Object, error) {
	return c.ListWithContext(context.Background(), opts)
}

func (c *countingListWatch) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return c.WatchWithContext(context.Background(), opts)
}

func (c *countingListWatch) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	c.fullFetches.Add(1)
	return c.ListWatch.ListWithContext(ctx, opts)
}

func (c *countingListWatch) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		c.fullFetches.Add(1)
	}
	return c.ListWatch.WatchWithContext(ctx, opts)
}

// fidelityRun drives writes in rounds and checks an informer's events.
// Each round changes every object once (create, update, update, delete,
// and again), so even an informer that had to relist in between must end
// each round having seen exactly one event per object and round.
type fidelityRun struct {
	ns    string
	log   *eventLog
	lw    *countingListWatch
	want  map[string][]string
	round int
}

func startFidelityRun(t *testing.T, ctx context.Context, cs kubernetes.Interface, ns string) *fidelityRun {
	t.Helper()
	createNamespace(t, cs, ns)
	r := &fidelityRun{ns: ns, log: newEventLog(), want: map[string][]string{}}
	r.lw = &countingListWatch{ListWatch: cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", ns, fields.Everything())}
	inf := cache.NewSharedIndexInformer(r.lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	if _, err := inf.AddEventHandler(r.log.handler()); err != nil {
		t.Fatal(err)
	}
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer never synced")
	}
	return r
}

// writeRound changes every object once through cs and waits until the
// informer has seen exactly the events the writes produced.
func (r *fidelityRun) writeRound(t *testing.T, ctx context.Context, cs kubernetes.Interface) {
	t.Helper()
	cms := cs.CoreV1().ConfigMaps(r.ns)
	step := r.round % 4
	for i := range fidelityObjects {
		name := fmt.Sprintf("cm-%d", i)
		var err error
		var cm *corev1.ConfigMap
		switch step {
		case 0:
			cm, err = cms.Create(ctx, newConfigMap(name, "round", fmt.Sprint(r.round)), metav1.CreateOptions{})
			if err == nil {
				r.want[name] = append(r.want[name], "add "+cm.ResourceVersion)
			}
		case 1, 2:
			cm, err = cms.Update(ctx, newConfigMap(name, "round", fmt.Sprint(r.round)), metav1.UpdateOptions{})
			if err == nil {
				r.want[name] = append(r.want[name], "update "+cm.ResourceVersion)
			}
		case 3:
			err = cms.Delete(ctx, name, metav1.DeleteOptions{})
			r.want[name] = append(r.want[name], "delete")
		}
		if err != nil {
			t.Fatalf("round %d, %s: %v", r.round, name, err)
		}
	}
	r.round++
	r.log.waitFor(t, r.want)
}

// TestInformerSeesEveryEventAcrossRestart restarts kapi (SIGKILL) between
// rounds of writes: the informer resumes its watch from its last
// resourceVersion and misses nothing.
func TestInformerSeesEveryEventAcrossRestart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k := framework.StartKapi(t, framework.WithStorageBackend("etcd3"))
	run := startFidelityRun(t, ctx, k.Clientset(), "fidelity")
	for range 3 {
		run.writeRound(t, ctx, k.Clientset())
	}
	k.Kill()
	k = k.Restart(t)
	for range 5 {
		run.writeRound(t, ctx, k.Clientset())
	}
}

// TestInformerRelistsAfterCompaction stops kapi, moves etcd on and
// compacts it, and starts kapi again: the informer's resourceVersion is
// gone, its watch gets 410 Gone, it relists, and its handler still sees
// exactly one event per write.
func TestInformerRelistsAfterCompaction(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cluster := startEtcdCluster(t, 1)
	k := framework.StartKapi(t, framework.WithArgs("--etcd-servers", strings.Join(cluster.Endpoints(), ",")))
	run := startFidelityRun(t, ctx, k.Clientset(), "compacted")
	for range 2 {
		run.writeRound(t, ctx, k.Clientset())
	}
	fetches := run.lw.fullFetches.Load()
	if err := k.Stop(); err != nil {
		t.Fatalf("stopping kapi: %v", err)
	}
	etcd := cluster.Client(t)
	// Two writes, so that the revision after the informer's is compacted too.
	for range 2 {
		if _, err := etcd.Put(ctx, "/unrelated/key", "moves the revision on"); err != nil {
			t.Fatal(err)
		}
	}
	status, err := etcd.Get(ctx, "/unrelated/key")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := etcd.Compact(ctx, status.Header.Revision); err != nil {
		t.Fatal(err)
	}
	k = k.Restart(t)
	for range 3 {
		run.writeRound(t, ctx, k.Clientset())
	}
	if got := run.lw.fullFetches.Load(); got <= fetches {
		t.Errorf("the informer fetched the full state %d times before the compaction and %d after; want a relist", fetches, got)
	}
}
