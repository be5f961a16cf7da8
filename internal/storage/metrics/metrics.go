// Package metrics holds the storage metrics kapi exports under the names
// kube-apiserver uses, so dashboards and alerts written for kube-apiserver
// work unchanged: etcd requests (etcd_request_duration_seconds,
// etcd_requests_total, etcd_request_errors_total), object counts
// (apiserver_storage_objects, apiserver_resource_objects), the lists
// storage serves and the events its watches receive (store.go), the watch
// cache's families (watchcache.go) and the size of the etcd database
// (size.go). The collectors belong to a Metrics value registered on a
// registry the caller owns; nothing is global.
package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Stability levels, as component-base writes them in front of HELP.
const (
	alpha  = "[ALPHA] "
	beta   = "[BETA] "
	stable = "[STABLE] "
)

// requestBuckets are kube-apiserver's buckets for etcd request latency.
var requestBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
	4, 5, 6, 8, 10, 15, 20, 30, 45, 60}

// Metrics records storage requests and object counts. A nil *Metrics
// records nothing, so code paths without metrics need no checks.
type Metrics struct {
	requestLatency *prometheus.HistogramVec
	requests       *prometheus.CounterVec
	requestErrors  *prometheus.CounterVec
	storedObjects  *prometheus.GaugeVec
	objects        *prometheus.GaugeVec
	store          *storeFamilies
	cache          *cacheFamilies

	// counts keeps the last successful count by resource for ObjectCount
	// (API Priority and Fairness sizes lists by it).
	counts sync.Map // schema.GroupResource -> int64
}

// New creates the storage metrics and registers them on reg.
func New(reg prometheus.Registerer) (*Metrics, error) {
	labels := []string{"operation", "group", "resource"}
	m := &Metrics{
		requestLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "etcd_request_duration_seconds",
			Help:    alpha + "Etcd request latency in seconds for each operation and object type.",
			Buckets: requestBuckets,
		}, labels),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "etcd_requests_total",
			Help: alpha + "Etcd request counts for each operation and object type.",
		}, labels),
		requestErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "etcd_request_errors_total",
			Help: alpha + "Etcd failed request counts for each operation and object type.",
		}, labels),
		storedObjects: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_storage_objects",
			Help: stable + "(Deprecated since 1.34.0) [DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
		}, []string{"resource"}),
		objects: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_resource_objects",
			Help: alpha + "Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
		}, []string{"group", "resource"}),
		store: newStoreFamilies(),
		cache: newCacheFamilies(),
	}
	collectors := []prometheus.Collector{m.requestLatency, m.requests, m.requestErrors, m.storedObjects, m.objects}
	collectors = append(collectors, m.store.collectors()...)
	collectors = append(collectors, m.cache.collectors()...)
	for _, c := range collectors {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// RecordRequest records one storage request of resource gr that started at
// start and ended with err.
func (m *Metrics) RecordRequest(operation string, gr schema.GroupResource, start time.Time, err error) {
	if m == nil {
		return
	}
	m.requestLatency.WithLabelValues(operation, gr.Group, gr.Resource).Observe(time.Since(start).Seconds())
	m.requests.WithLabelValues(operation, gr.Group, gr.Resource).Inc()
	if err != nil {
		m.requestErrors.WithLabelValues(operation, gr.Group, gr.Resource).Inc()
	}
}

// SetObjectCount records how many objects of gr are stored; a failed count
// is recorded as -1, as upstream does.
func (m *Metrics) SetObjectCount(gr schema.GroupResource, count int64, err error) {
	if m == nil {
		return
	}
	v := float64(count)
	if err != nil {
		v = -1
	}
	m.rememberCount(gr, count, err)
	m.storedObjects.WithLabelValues(gr.String()).Set(v)
	m.objects.WithLabelValues(gr.Group, gr.Resource).Set(v)
}
