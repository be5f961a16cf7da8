package memory

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/kvstore"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

func configMaps(t *testing.T, b *Backend) storage.Interface {
	t.Helper()
	s, err := b.ForResource(storagetest.ConfigMapResource())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func create(t *testing.T, s storage.Interface, name string) *corev1.ConfigMap {
	t.Helper()
	out := &corev1.ConfigMap{}
	in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	if err := s.Create(t.Context(), storagetest.ConfigMapKey("ns", name), in, out); err != nil {
		t.Fatalf("Create %s: %v", name, err)
	}
	return out
}

func TestHistoryBound(t *testing.T) {
	b := NewWithOptions(Options{HistorySize: 3})
	t.Cleanup(func() { _ = b.Close() })
	s := configMaps(t, b)
	var rvs []string
	for i := range 5 {
		rvs = append(rvs, create(t, s, fmt.Sprintf("cm-%d", i)).ResourceVersion)
	}
	// Five writes with room for three events: the first two are gone, so
	// resuming after the second write is the oldest possible point.
	tests := []struct {
		rv       string
		expired  bool
		wantList int
	}{
		{rvs[0], true, 0},
		{rvs[1], false, 2},
		{rvs[3], false, 4},
	}
	for _, tt := range tests {
		t.Run("rv="+tt.rv, func(t *testing.T) {
			opts := storage.ListOptions{ResourceVersion: tt.rv, Recursive: true, Predicate: storage.Everything}
			w, err := s.Watch(t.Context(), "/configmaps", opts)
			if tt.expired {
				if !storage.IsExpired(err) {
					t.Fatalf("Watch from %s = %v, want ErrCodeExpired", tt.rv, err)
				}
			} else if err != nil {
				t.Fatalf("Watch from %s: %v", tt.rv, err)
			} else {
				w.Stop()
			}
			opts.ResourceVersionMatch = metav1.ResourceVersionMatchExact
			list := &corev1.ConfigMapList{}
			err = s.GetList(t.Context(), "/configmaps", opts, list)
			if tt.expired != storage.IsExpired(err) || (!tt.expired && len(list.Items) != tt.wantList) {
				t.Errorf("exact list at %s = %d items, %v; want %d items, expired=%v", tt.rv, len(list.Items), err, tt.wantList, tt.expired)
			}
		})
	}
}

func TestSlowWatcherIsClosed(t *testing.T) {
	b := NewWithOptions(Options{WatchBufferSize: 2})
	t.Cleanup(func() { _ = b.Close() })
	s := configMaps(t, b)
	w, err := s.Watch(t.Context(), "/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: storage.Everything})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// Nobody reads the watch; the writes must still all finish.
	const writes = 500
	for i := range writes {
		create(t, s, fmt.Sprintf("cm-%d", i))
	}
	got := 0
	for range w.ResultChan() {
		got++
	}
	if got >= writes {
		t.Errorf("slow watcher received all %d events; want it closed early", got)
	}
}

func TestCloseEndsWatchesAndOperations(t *testing.T) {
	b := New()
	s := configMaps(t, b)
	w, err := s.Watch(t.Context(), "/configmaps", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: storage.Everything})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for range w.ResultChan() {
	}
	err = s.Get(t.Context(), storagetest.ConfigMapKey("ns", "a"), storage.GetOptions{}, &corev1.ConfigMap{})
	if storage.CodeOf(err) != storage.ErrCodeUnreachable {
		t.Errorf("Get after Close = %v, want ErrCodeUnreachable", err)
	}
}

func TestRevisionSharedAcrossResources(t *testing.T) {
	b := New()
	t.Cleanup(func() { _ = b.Close() })
	cms := configMaps(t, b)
	cfg := storagetest.ConfigMapResource()
	cfg.ResourcePrefix = "/other"
	other, err := b.ForResource(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := create(t, cms, "a")
	in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}}
	bOut := &corev1.ConfigMap{}
	if err := other.Create(t.Context(), "/other/ns/b", in, bOut); err != nil {
		t.Fatal(err)
	}
	ra, _ := cms.Versioner().ObjectResourceVersion(a)
	rb, _ := cms.Versioner().ObjectResourceVersion(bOut)
	if rb != ra+1 {
		t.Errorf("resourceVersions %d then %d across resources, want one shared counter", ra, rb)
	}
	if cur, _ := other.CurrentResourceVersion(t.Context()); cur != rb {
		t.Errorf("CurrentResourceVersion = %d, want %d", cur, rb)
	}
}

// TestHistoryRing: the ring grows past its first size keeping every event
// in order, and once at its bound drops the oldest, whatever the bound.
func TestHistoryRing(t *testing.T) {
	tests := []struct {
		max, adds int
	}{
		{max: 1, adds: 3},
		{max: 3, adds: 2},
		{max: minHistoryRing, adds: minHistoryRing + 5},
		{max: minHistoryRing + 1, adds: 3 * minHistoryRing},
		{max: 5 * minHistoryRing, adds: 3*minHistoryRing + 7},
		{max: 5 * minHistoryRing, adds: 9 * minHistoryRing},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("max=%d,adds=%d", tt.max, tt.adds), func(t *testing.T) {
			h := newHistory(tt.max)
			dropped := 0
			for i := 1; i <= tt.adds; i++ {
				ev := kvstore.Event{KV: kvstore.KeyValue{ModRevision: int64(i)}}
				if d, ok := h.add(ev); ok {
					dropped++
					if d.KV.ModRevision != int64(dropped) {
						t.Fatalf("add %d dropped revision %d, want %d", i, d.KV.ModRevision, dropped)
					}
				}
			}
			if want := max(tt.adds-tt.max, 0); dropped != want {
				t.Errorf("dropped %d events, want %d", dropped, want)
			}
			if len(h.events) > tt.max {
				t.Errorf("ring holds %d slots, over its bound %d", len(h.events), tt.max)
			}
			got := h.since(0, &memWatcher{end: "\x00"})
			if len(got) != tt.adds-dropped {
				t.Fatalf("since(0) = %d events, want %d", len(got), tt.adds-dropped)
			}
			for i, ev := range got {
				if want := int64(dropped + i + 1); ev.KV.ModRevision != want {
					t.Fatalf("event %d has revision %d, want %d", i, ev.KV.ModRevision, want)
				}
			}
		})
	}
}
