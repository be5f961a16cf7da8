package etcd3

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// measuredConfigMaps returns a backend on a fresh prefix recording into
// a registry of its own, and its configmap store.
func measuredConfigMaps(t *testing.T) (*prometheus.Registry, *Backend, storage.Interface) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	b := NewWithOptions(shared.Client(), Options{Prefix: shared.NewPrefix("registry-test"), Metrics: m})
	t.Cleanup(func() { _ = b.Close() })
	cfg := storagetest.ConfigMapResource()
	cfg.GroupResource = schema.GroupResource{Resource: "configmaps"}
	s, err := b.ForResource(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return reg, b, s
}

func TestRequestMetrics(t *testing.T) {
	reg, _, s := measuredConfigMaps(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	if err := s.Create(t.Context(), "/configmaps/ns/a", cm, &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Get(t.Context(), "/configmaps/ns/a", storage.GetOptions{}, &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP etcd_requests_total [ALPHA] Etcd request counts for each operation and object type.
# TYPE etcd_requests_total counter
etcd_requests_total{group="",operation="create",resource="configmaps"} 1
etcd_requests_total{group="",operation="get",resource="configmaps"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "etcd_requests_total"); err != nil {
		t.Error(err)
	}
}

// TestStoreMetrics: a list counts what it read, tested and returned, and
// is timed; a watch counts the events and progress notifications etcd
// sends it.
func TestStoreMetrics(t *testing.T) {
	reg, b, s := measuredConfigMaps(t)
	ctx := t.Context()
	for i, app := range []string{"a", "b", "b"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprint("cm-", i), Labels: map[string]string{"app": app}}}
		if err := s.Create(ctx, "/configmaps/ns/"+cm.Name, cm, nil); err != nil {
			t.Fatal(err)
		}
	}
	sel, err := labels.Parse("app=a")
	if err != nil {
		t.Fatal(err)
	}
	pred := storage.SelectionPredicate{Label: sel, Field: fields.Everything(), GetAttrs: storagetest.ConfigMapAttrs}
	if err := s.GetList(ctx, "/configmaps/ns", storage.ListOptions{Recursive: true, Predicate: pred}, &corev1.ConfigMapList{}); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP apiserver_storage_list_evaluated_objects_total [ALPHA] Number of objects tested in the course of serving a LIST request from storage
# TYPE apiserver_storage_list_evaluated_objects_total counter
apiserver_storage_list_evaluated_objects_total{group="",resource="configmaps",storage="etcd"} 3
# HELP apiserver_storage_list_fetched_objects_total [ALPHA] Number of objects read from storage in the course of serving a LIST request
# TYPE apiserver_storage_list_fetched_objects_total counter
apiserver_storage_list_fetched_objects_total{group="",index="",resource="configmaps",storage="etcd"} 3
# HELP apiserver_storage_list_returned_objects_total [ALPHA] Number of objects returned for a LIST request from storage
# TYPE apiserver_storage_list_returned_objects_total counter
apiserver_storage_list_returned_objects_total{group="",resource="configmaps",storage="etcd"} 1
# HELP apiserver_storage_list_total [ALPHA] Number of LIST requests served from storage
# TYPE apiserver_storage_list_total counter
apiserver_storage_list_total{group="",index="",resource="configmaps",storage="etcd"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_storage_list_total",
		"apiserver_storage_list_fetched_objects_total", "apiserver_storage_list_evaluated_objects_total",
		"apiserver_storage_list_returned_objects_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(reg, "apiserver_storage_list_duration_seconds"); n != 1 {
		t.Errorf("apiserver_storage_list_duration_seconds has %d series, want 1", n)
	}

	everything := storage.Everything
	everything.AllowWatchBookmarks = true
	w, err := s.Watch(ctx, "/configmaps/ns", storage.ListOptions{ResourceVersion: "0", SendInitialEvents: new(false),
		Recursive: true, ProgressNotify: true, Predicate: everything})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := s.Create(ctx, "/configmaps/ns/new", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "new"}}, nil); err != nil {
		t.Fatal(err)
	}
	if ev := <-w.ResultChan(); ev.Type != watch.Added {
		t.Fatalf("got %s, want ADDED", ev.Type)
	}
	if err := b.RequestProgress(ctx); err != nil {
		t.Fatal(err)
	}
	if ev := <-w.ResultChan(); ev.Type != watch.Bookmark {
		t.Fatalf("got %s, want BOOKMARK", ev.Type)
	}
	want = `
# HELP apiserver_storage_events_received_total [BETA] Number of etcd events received split by kind.
# TYPE apiserver_storage_events_received_total counter
apiserver_storage_events_received_total{group="",resource="configmaps"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_storage_events_received_total"); err != nil {
		t.Error(err)
	}
	// Other tests on the shared etcd may ask for progress too.
	if got := counterValue(t, reg, "etcd_bookmark_total"); got < 1 {
		t.Errorf("etcd_bookmark_total = %v after a progress notification, want at least 1", got)
	}
}

func TestDBSize(t *testing.T) {
	n, err := DBSize(t.Context(), shared.Client())
	if err != nil {
		t.Fatal(err)
	}
	if n <= 0 {
		t.Errorf("DBSize = %d, want a positive size", n)
	}
}

// counterValue sums the series of the counter family name in reg.
func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, mf := range families {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}
