package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestObjectCount(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	deployments := schema.GroupResource{Group: "apps", Resource: "deployments"}
	m.SetObjectCount(deployments, 7, nil)
	m.SetObjectCount(schema.GroupResource{Resource: "configmaps"}, 3, errors.New("etcd down"))
	want := `
# HELP apiserver_storage_objects [STABLE] (Deprecated since 1.34.0) [DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.
# TYPE apiserver_storage_objects gauge
apiserver_storage_objects{resource="configmaps"} -1
apiserver_storage_objects{resource="deployments.apps"} 7
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_storage_objects"); err != nil {
		t.Error(err)
	}
}

func TestRecordRequest(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	gr := schema.GroupResource{Resource: "configmaps"}
	m.RecordRequest("get", gr, time.Now(), nil)
	m.RecordRequest("get", gr, time.Now(), errors.New("boom"))
	want := `
# HELP etcd_request_errors_total [ALPHA] Etcd failed request counts for each operation and object type.
# TYPE etcd_request_errors_total counter
etcd_request_errors_total{group="",operation="get",resource="configmaps"} 1
# HELP etcd_requests_total [ALPHA] Etcd request counts for each operation and object type.
# TYPE etcd_requests_total counter
etcd_requests_total{group="",operation="get",resource="configmaps"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "etcd_requests_total", "etcd_request_errors_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(reg, "etcd_request_duration_seconds"); n != 1 {
		t.Errorf("etcd_request_duration_seconds has %d series, want 1", n)
	}
}

func TestNilRecordsNothing(t *testing.T) {
	var m *Metrics
	m.RecordRequest("get", schema.GroupResource{}, time.Now(), nil)
	m.SetObjectCount(schema.GroupResource{}, 1, nil)
}

func TestNilRecordersRecordNothing(t *testing.T) {
	var m *Metrics
	s := m.Store(schema.GroupResource{})
	s.ObserveList(1, 1, 1, time.Now())
	s.EventsReceived(1)
	s.Bookmark()
	w := m.WatchCache(schema.GroupResource{})
	w.Capacity(1)
	w.Initialized(time.Now(), 1)
	w.InitializationFailed()
	w.EventReceived()
	w.ResourceVersion(1)
	w.Dispatched()
	w.InitEvents(1)
	w.WatcherTerminated()
	w.ReadWait(time.Second)
	w.ConsistentRead(true, false)
	w.ObserveList(1, 1, 1)
}

// TestWatchCacheSeriesOnFirstUse: a cache's series appear once what they
// count happened, as upstream's do, and the revision keeps its 15 lowest
// digits.
func TestWatchCacheSeriesOnFirstUse(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	w := m.WatchCache(schema.GroupResource{Group: "apps", Resource: "deployments"})
	if n := testutil.CollectAndCount(reg); n != 0 {
		t.Fatalf("%d series before anything happened, want 0", n)
	}
	w.ResourceVersion(1_234_000_000_000_000_042)
	w.ConsistentRead(false, true)
	want := `
# HELP apiserver_watch_cache_consistent_read_total [ALPHA] Counter for consistent reads from cache.
# TYPE apiserver_watch_cache_consistent_read_total counter
apiserver_watch_cache_consistent_read_total{fallback="true",group="apps",resource="deployments",success="false"} 1
# HELP apiserver_watch_cache_resource_version [ALPHA] Current resource version of watch cache broken by resource type. This is truncated to the 15 least significant digits.
# TYPE apiserver_watch_cache_resource_version gauge
apiserver_watch_cache_resource_version{group="apps",resource="deployments"} 42
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

func TestSizeCollector(t *testing.T) {
	var fail bool
	c := NewSizeCollector(func(context.Context) (int64, error) {
		if fail {
			return 0, errors.New("etcd down")
		}
		return 4096, nil
	}, nil)
	want := `
# HELP apiserver_storage_size_bytes [STABLE] Size of the storage database file physically allocated in bytes.
# TYPE apiserver_storage_size_bytes gauge
apiserver_storage_size_bytes{storage_cluster_id="etcd-0"} 4096
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	fail = true
	if n := testutil.CollectAndCount(c); n != 0 {
		t.Errorf("%d series after a failed read, want none", n)
	}
}
