package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/memory"
)

// watchCounting counts the open watches of the storage below the cache.
type watchCounting struct {
	storage.Backend
	open *atomic.Int64
}

func (b watchCounting) ForResource(cfg storage.ResourceConfig) (storage.Interface, error) {
	s, err := b.Backend.ForResource(cfg)
	if err != nil {
		return nil, err
	}
	return watchCountingStorage{Interface: s, open: b.open}, nil
}

// RequestProgress keeps the backend's one progress loop for all caches.
func (b watchCounting) RequestProgress(ctx context.Context) error {
	return b.Backend.(interface{ RequestProgress(context.Context) error }).RequestProgress(ctx)
}

type watchCountingStorage struct {
	storage.Interface
	open *atomic.Int64
}

func (s watchCountingStorage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	w, err := s.Interface.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	s.open.Add(1)
	return &countedWatch{Interface: w, open: s.open}, nil
}

type countedWatch struct {
	watch.Interface
	open *atomic.Int64
	once sync.Once
}

func (w *countedWatch) Stop() {
	w.once.Do(func() { w.open.Add(-1) })
	w.Interface.Stop()
}

// eventually polls cond until it holds or the deadline passes; what is
// the last description cond gave.
func eventually(t *testing.T, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, what := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
		<-tick.C
	}
}

// Every rebuild of a CRD's storage releases the one it replaces: after 50
// updates and a delete, the caches, the storage watches and the
// goroutines are back where they were before the CRD. A watch open on the
// old storage ends when the CRD changes, as upstream ends it.
func TestCRDChangesReleaseTheirWatchCache(t *testing.T) {
	var open atomic.Int64
	e := newCachedEnv(t, func(m *memory.Backend) storage.Backend { return watchCounting{Backend: m, open: &open} })
	client := &http.Client{Transport: &http.Transport{}}
	if err := e.h.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	caches, goroutines := e.cache.Caches(), runtime.NumGoroutine()

	crd := widgetCRD(apiextv1.NamespaceScoped)
	e.src.set(crd)
	if err := e.h.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if code, b := e.do(t, "POST", "/apis/example.com/v1/namespaces/ns1/widgets", widget("v1", "w1", `{"size":1}`)); code != 201 {
		t.Fatalf("create: %d %s", code, b)
	}
	resp, err := client.Get(e.server.URL + "/apis/example.com/v1/namespaces/ns1/widgets?watch=true&resourceVersion=0")
	if err != nil {
		t.Fatal(err)
	}
	watchEnded := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		watchEnded <- err
	}()

	for i := range 50 {
		crd = crd.DeepCopy()
		crd.ResourceVersion = strconv.Itoa(i + 2)
		e.src.set(crd)
		if err := e.h.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			select {
			case err := <-watchEnded:
				if err != nil {
					t.Errorf("the watch on the replaced storage did not end cleanly: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Error("the watch on the replaced storage is still open")
				resp.Body.Close()
			}
		}
		if code, b := e.do(t, "GET", "/apis/example.com/v1/namespaces/ns1/widgets/w1", ""); code != 200 {
			t.Fatalf("get after update %d: %d %s", i, code, b)
		}
	}
	e.src.remove(crd.Name)
	if err := e.h.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	client.CloseIdleConnections()
	http.DefaultClient.CloseIdleConnections()

	eventually(t, func() (bool, string) {
		c, w, g := e.cache.Caches(), open.Load(), runtime.NumGoroutine()
		return c == caches && w == 0 && g <= goroutines,
			fmt.Sprintf("after 50 updates and a delete: %d caches (want %d), %d storage watches (want 0), %d goroutines (want at most %d)", c, caches, w, g, goroutines)
	})
}
