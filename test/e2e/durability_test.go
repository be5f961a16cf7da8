package e2e

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// writerCount is how many clients write at once in the durability tests.
const writerCount = 4

// writeRecord is what a writer knows about one of its configmaps.
type writeRecord struct {
	// acked is the data of the last write that got a 2xx, with the
	// resourceVersion the server answered; empty rv when none did.
	acked, ackedRV string
	// attempted is the data of a write that was sent but got no answer:
	// it may or may not have been stored.
	attempted string
}

// writers run writerCount clients that each create configmaps and update
// every other one, recording which writes the server acknowledged.
type writers struct {
	ns      string
	mu      sync.Mutex
	records map[string]*writeRecord
	acks    int
	ackCh   chan struct{} // receives after every acknowledged write
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

func startWriters(t *testing.T, cfg *rest.Config, ns string) *writers {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	// A write to a dead server must fail fast so the writer moves on.
	cfg.Timeout = 10 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	w := &writers{ns: ns, records: map[string]*writeRecord{}, ackCh: make(chan struct{}, 1), stop: cancel}
	for i := range writerCount {
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.run(ctx, cs, i)
		}()
	}
	t.Cleanup(w.halt)
	return w
}

// halt stops the writers and waits for them.
func (w *writers) halt() {
	w.stop()
	w.wg.Wait()
}

func (w *writers) run(ctx context.Context, cs kubernetes.Interface, id int) {
	cms := cs.CoreV1().ConfigMaps(w.ns)
	for n := 0; ctx.Err() == nil; n++ {
		name := fmt.Sprintf("w%d-%d", id, n)
		data := strconv.Itoa(n)
		w.attempt(name, data)
		created, err := cms.Create(ctx, newConfigMap(name, "v", data), metav1.CreateOptions{})
		if err != nil {
			continue
		}
		w.ack(name, data, created.ResourceVersion)
		if n%2 == 1 {
			continue
		}
		data += "-updated"
		w.attempt(name, data)
		created.Data["v"] = data
		if updated, err := cms.Update(ctx, created, metav1.UpdateOptions{}); err == nil {
			w.ack(name, data, updated.ResourceVersion)
		}
	}
}

func (w *writers) attempt(name, data string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.records[name]
	if r == nil {
		r = &writeRecord{}
		w.records[name] = r
	}
	r.attempted = data
}

func (w *writers) ack(name, data, rv string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.records[name]
	r.acked, r.ackedRV, r.attempted = data, rv, ""
	w.acks++
	select {
	case w.ackCh <- struct{}{}:
	default:
	}
}

// waitAcks waits until at least n writes have been acknowledged in total.
func (w *writers) waitAcks(t *testing.T, n int, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		w.mu.Lock()
		got := w.acks
		w.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-w.ackCh:
		case <-deadline:
			t.Fatalf("only %d of %d writes acknowledged within %v", got, n, timeout)
		}
	}
}

// verify lists the namespace and checks that every acknowledged write is
// there: an object holds its acknowledged data at the acknowledged
// resourceVersion, or a newer write of it that was in flight.
func (w *writers) verify(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	list, err := cs.CoreV1().ConfigMaps(w.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing after the restart: %v", err)
	}
	stored := map[string]corev1.ConfigMap{}
	for _, cm := range list.Items {
		if cm.Name != rootCAConfigMap {
			stored[cm.Name] = cm
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	acked := 0
	for name, r := range w.records {
		cm, ok := stored[name]
		switch {
		case r.ackedRV == "" && ok && cm.Data["v"] != r.attempted:
			t.Errorf("%s was never acknowledged but holds %q, not the attempted %q", name, cm.Data["v"], r.attempted)
		case r.ackedRV == "":
		case !ok:
			t.Errorf("%s was acknowledged at resourceVersion %s but is gone", name, r.ackedRV)
		case cm.Data["v"] == r.acked && cm.ResourceVersion == r.ackedRV:
			acked++
		case r.attempted != "" && cm.Data["v"] == r.attempted:
			acked++
		default:
			t.Errorf("%s holds %q at %s; acknowledged %q at %s (in flight: %q)", name, cm.Data["v"], cm.ResourceVersion, r.acked, r.ackedRV, r.attempted)
		}
		delete(stored, name)
	}
	for name := range stored {
		t.Errorf("%s is stored but no writer ever sent it", name)
	}
	t.Logf("%d objects checked, %d acknowledged writes", acked, w.acks)
}

// TestDurabilityAfterKill writes from several clients, SIGKILLs kapi (on
// its embedded etcd) in the middle of the writes, restarts it and checks
// that every acknowledged write survived and nothing else appeared.
func TestDurabilityAfterKill(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("etcd3"))
	createNamespace(t, k.Clientset(), "durable")
	w := startWriters(t, k.RESTConfig(), "durable")
	w.waitAcks(t, 200, time.Minute)
	k.Kill()
	w.halt()

	k2 := k.Restart(t)
	w.verify(t, k2.Clientset())
}
