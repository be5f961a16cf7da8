package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Values of the storage label of the list families: the two places
// upstream serves a list from.
const (
	StorageEtcd       = "etcd"
	StorageWatchCache = "watchcache"
)

// storeFamilies are the families of the lists storage serves and of the
// events its watches receive.
type storeFamilies struct {
	lists         *prometheus.CounterVec
	listFetched   *prometheus.CounterVec
	listEvaluated *prometheus.CounterVec
	listReturned  *prometheus.CounterVec
	listDuration  *prometheus.HistogramVec
	events        *prometheus.CounterVec
	bookmarks     *prometheus.CounterVec
}

func newStoreFamilies() *storeFamilies {
	gr := []string{"group", "resource"}
	return &storeFamilies{
		lists: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_storage_list_total",
			Help: alpha + "Number of LIST requests served from storage",
		}, []string{"group", "resource", "storage", "index"}),
		listFetched: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_storage_list_fetched_objects_total",
			Help: alpha + "Number of objects read from storage in the course of serving a LIST request",
		}, []string{"group", "resource", "storage", "index"}),
		listEvaluated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_storage_list_evaluated_objects_total",
			Help: alpha + "Number of objects tested in the course of serving a LIST request from storage",
		}, []string{"group", "resource", "storage"}),
		listReturned: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_storage_list_returned_objects_total",
			Help: alpha + "Number of objects returned for a LIST request from storage",
		}, []string{"group", "resource", "storage"}),
		listDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_storage_list_duration_seconds",
			Help:    alpha + "Latency of the storage layer GetList call in seconds, including object decode, split by whether etcd RangeStream was used.",
			Buckets: requestBuckets,
		}, []string{"streamed", "group", "resource"}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_storage_events_received_total",
			Help: beta + "Number of etcd events received split by kind.",
		}, gr),
		bookmarks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "etcd_bookmark_total",
			Help: alpha + "Number of etcd bookmarks (progress notify events) split by kind.",
		}, gr),
	}
}

func (f *storeFamilies) collectors() []prometheus.Collector {
	return []prometheus.Collector{f.lists, f.listFetched, f.listEvaluated, f.listReturned, f.listDuration, f.events, f.bookmarks}
}

// listSeries are the series of the lists of one resource from one storage.
type listSeries struct {
	total, fetched, evaluated, returned prometheus.Counter
}

func (s listSeries) observe(fetched, evaluated, returned int) {
	s.total.Inc()
	s.fetched.Add(float64(fetched))
	s.evaluated.Add(float64(evaluated))
	s.returned.Add(float64(returned))
}

// listSeriesOf returns the list series of gr in storage, made on first
// use. kapi lists from no index, so the index label is always "".
func (f *storeFamilies) listSeriesOf(gr schema.GroupResource, storage string) func() listSeries {
	return sync.OnceValue(func() listSeries {
		return listSeries{
			total:     f.lists.WithLabelValues(gr.Group, gr.Resource, storage, ""),
			fetched:   f.listFetched.WithLabelValues(gr.Group, gr.Resource, storage, ""),
			evaluated: f.listEvaluated.WithLabelValues(gr.Group, gr.Resource, storage),
			returned:  f.listReturned.WithLabelValues(gr.Group, gr.Resource, storage),
		}
	})
}

// Store records what one resource's etcd storage does besides its
// requests: the lists it serves and what its watches receive. Each series
// is resolved once, on first use (so a series appears only once what it
// counts happened, as upstream's do), and recording costs no label
// look-up. A nil *Store records nothing.
type Store struct {
	lists        func() listSeries
	listDuration func() prometheus.Observer
	events       func() prometheus.Counter
	bookmarks    func() prometheus.Counter
}

// Store returns the recorder of resource gr's etcd storage; nil for a nil
// m.
func (m *Metrics) Store(gr schema.GroupResource) *Store {
	if m == nil {
		return nil
	}
	f := m.store
	return &Store{
		lists: f.listSeriesOf(gr, StorageEtcd),
		// kapi reads ranges, never etcd's RangeStream.
		listDuration: observerOf(f.listDuration, "false", gr.Group, gr.Resource),
		events:       counterOf(f.events, gr.Group, gr.Resource),
		bookmarks:    counterOf(f.bookmarks, gr.Group, gr.Resource),
	}
}

// ObserveList records a list, started at start, that read fetched keys,
// tested evaluated objects against its selectors and returned returned
// objects.
func (s *Store) ObserveList(fetched, evaluated, returned int, start time.Time) {
	if s == nil {
		return
	}
	s.lists().observe(fetched, evaluated, returned)
	s.listDuration().Observe(time.Since(start).Seconds())
}

// EventsReceived records n change events received by a watch.
func (s *Store) EventsReceived(n int) {
	if s != nil && n > 0 {
		s.events().Add(float64(n))
	}
}

// Bookmark records a progress notification received by a watch.
func (s *Store) Bookmark() {
	if s != nil {
		s.bookmarks().Inc()
	}
}

// counterOf returns the child of v with labels, made on first use.
func counterOf(v *prometheus.CounterVec, labels ...string) func() prometheus.Counter {
	return sync.OnceValue(func() prometheus.Counter { return v.WithLabelValues(labels...) })
}

// observerOf returns the child of v with labels, made on first use.
func observerOf(v *prometheus.HistogramVec, labels ...string) func() prometheus.Observer {
	return sync.OnceValue(func() prometheus.Observer { return v.WithLabelValues(labels...) })
}
