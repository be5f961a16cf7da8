package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Upstream's buckets for the watch cache's waits and initializations.
var (
	readWaitBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3}
	initBuckets     = []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180, 600}
)

// cacheFamilies are the watch cache's families.
type cacheFamilies struct {
	received        *prometheus.CounterVec
	dispatched      *prometheus.CounterVec
	initEvents      *prometheus.CounterVec
	terminated      *prometheus.CounterVec
	resourceVersion *prometheus.GaugeVec
	capacity        *prometheus.GaugeVec
	inits           *prometheus.CounterVec
	initErrors      *prometheus.CounterVec
	initDuration    *prometheus.HistogramVec
	readWait        *prometheus.HistogramVec
	consistentReads *prometheus.CounterVec
}

func newCacheFamilies() *cacheFamilies {
	gr := []string{"group", "resource"}
	return &cacheFamilies{
		received: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_watch_cache_events_received_total",
			Help: alpha + "Counter of events received in watch cache broken by resource type.",
		}, gr),
		dispatched: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_watch_cache_events_dispatched_total",
			Help: alpha + "Counter of events dispatched in watch cache broken by resource type.",
		}, gr),
		initEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_init_events_total",
			Help: alpha + "Counter of init events processed in watch cache broken by resource type.",
		}, gr),
		terminated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_terminated_watchers_total",
			Help: alpha + "Counter of watchers closed due to unresponsiveness broken by resource type.",
		}, gr),
		resourceVersion: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_watch_cache_resource_version",
			Help: alpha + "Current resource version of watch cache broken by resource type. This is truncated to the 15 least significant digits.",
		}, gr),
		// Upstream's one watch cache family without the apiserver_ prefix.
		capacity: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "watch_cache_capacity",
			Help: alpha + "Total capacity of watch cache broken by resource type.",
		}, gr),
		inits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_watch_cache_initializations_total",
			Help: alpha + "Counter of watch cache initializations broken by resource type.",
		}, gr),
		initErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_watch_cache_initialization_errors_total",
			Help: alpha + "Counter of watch cache initialization errors broken by resource type.",
		}, gr),
		initDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_watch_cache_initialization_duration_seconds",
			Help:    alpha + "Histogram of watch cache initialization duration in seconds, broken by resource type.",
			Buckets: initBuckets,
		}, gr),
		readWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_watch_cache_read_wait_seconds",
			Help:    alpha + "Histogram of time spent waiting for a watch cache to become fresh.",
			Buckets: readWaitBuckets,
		}, gr),
		consistentReads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_watch_cache_consistent_read_total",
			Help: alpha + "Counter for consistent reads from cache.",
		}, []string{"group", "resource", "success", "fallback"}),
	}
}

func (f *cacheFamilies) collectors() []prometheus.Collector {
	return []prometheus.Collector{f.received, f.dispatched, f.initEvents, f.terminated, f.resourceVersion,
		f.capacity, f.inits, f.initErrors, f.initDuration, f.readWait, f.consistentReads}
}

// WatchCache records what one resource's watch cache does. Its series are
// resolved once, on first use (so a series appears only once what it
// counts happened, as upstream's do), and recording costs no label
// look-up and no allocation. A nil *WatchCache records nothing.
type WatchCache struct {
	received, dispatched      func() prometheus.Counter
	initEvents, terminated    func() prometheus.Counter
	inits, initErrors         func() prometheus.Counter
	resourceVersion, capacity func() prometheus.Gauge
	initDuration, readWait    func() prometheus.Observer
	lists                     func() listSeries
	// consistentReads by success, then fallback.
	consistentReads [2][2]func() prometheus.Counter
}

// WatchCache returns the recorder of resource gr's watch cache; nil for a
// nil m.
func (m *Metrics) WatchCache(gr schema.GroupResource) *WatchCache {
	if m == nil {
		return nil
	}
	f, g, r := m.cache, gr.Group, gr.Resource
	w := &WatchCache{
		received:        counterOf(f.received, g, r),
		dispatched:      counterOf(f.dispatched, g, r),
		initEvents:      counterOf(f.initEvents, g, r),
		terminated:      counterOf(f.terminated, g, r),
		inits:           counterOf(f.inits, g, r),
		initErrors:      counterOf(f.initErrors, g, r),
		resourceVersion: gaugeOf(f.resourceVersion, g, r),
		capacity:        gaugeOf(f.capacity, g, r),
		initDuration:    observerOf(f.initDuration, g, r),
		readWait:        observerOf(f.readWait, g, r),
		lists:           m.store.listSeriesOf(gr, StorageWatchCache),
	}
	for i, success := range []string{"false", "true"} {
		for j, fallback := range []string{"false", "true"} {
			w.consistentReads[i][j] = counterOf(f.consistentReads, g, r, success, fallback)
		}
	}
	return w
}

// Capacity records how many changes the cache keeps for resuming watches.
func (w *WatchCache) Capacity(n int) {
	if w != nil {
		w.capacity().Set(float64(n))
	}
}

// Initialized records a cache filled by a list, started at start, at
// resourceVersion rv.
func (w *WatchCache) Initialized(start time.Time, rv uint64) {
	if w == nil {
		return
	}
	w.inits().Inc()
	w.initDuration().Observe(time.Since(start).Seconds())
	w.ResourceVersion(rv)
}

// InitializationFailed records a list, or the watch after it, that failed
// to fill the cache.
func (w *WatchCache) InitializationFailed() {
	if w != nil {
		w.initErrors().Inc()
	}
}

// EventReceived records a change the cache received from storage.
func (w *WatchCache) EventReceived() {
	if w != nil {
		w.received().Inc()
	}
}

// ResourceVersion records the revision the cache reached, keeping its 15
// lowest digits as upstream does, so the gauge stays exact as a float.
func (w *WatchCache) ResourceVersion(rv uint64) {
	if w != nil {
		w.resourceVersion().Set(float64(rv % 1_000_000_000_000_000))
	}
}

// Dispatched records an event (a change or a progress notification) the
// dispatcher fanned out to the watchers.
func (w *WatchCache) Dispatched() {
	if w != nil {
		w.dispatched().Inc()
	}
}

// InitEvents records the n events a new watcher was sent from the cache
// before following changes: the start state, or the changes it replays.
func (w *WatchCache) InitEvents(n int) {
	if w != nil && n > 0 {
		w.initEvents().Add(float64(n))
	}
}

// WatcherTerminated records a watcher closed for not keeping up.
func (w *WatchCache) WatcherTerminated() {
	if w != nil {
		w.terminated().Inc()
	}
}

// ReadWait records the time a read waited for the cache to become fresh.
func (w *WatchCache) ReadWait(d time.Duration) {
	if w != nil {
		w.readWait().Observe(d.Seconds())
	}
}

// ConsistentRead records a consistent list the cache took on: whether it
// succeeded, and whether it fell back to storage because the cache did not
// catch up in time.
func (w *WatchCache) ConsistentRead(success, fallback bool) {
	if w != nil {
		w.consistentReads[b2i(success)][b2i(fallback)]().Inc()
	}
}

// ObserveList records a list served from the cache that walked fetched
// objects, tested evaluated of them against its selectors and returned
// returned objects.
func (w *WatchCache) ObserveList(fetched, evaluated, returned int) {
	if w != nil {
		w.lists().observe(fetched, evaluated, returned)
	}
}

// gaugeOf returns the child of v with labels, made on first use.
func gaugeOf(v *prometheus.GaugeVec, labels ...string) func() prometheus.Gauge {
	return sync.OnceValue(func() prometheus.Gauge { return v.WithLabelValues(labels...) })
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
