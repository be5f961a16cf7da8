package metrics

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// cache maps a label tuple to the children of the vectors it labels.
// WithLabelValues hashes every label value and locks the vector on each
// call; a look-up here is one map access under a read lock, and the
// children are made once per tuple. It grows as the vectors do, no more.
type cache[K comparable, V any] struct {
	mu       sync.RWMutex
	children map[K]V
	make     func(K) V
}

func newCache[K comparable, V any](make func(K) V) cache[K, V] {
	return cache[K, V]{children: map[K]V{}, make: make}
}

func (c *cache[K, V]) get(k K) V {
	c.mu.RLock()
	v, ok := c.children[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.children[k]; ok {
		return v
	}
	v = c.make(k)
	c.children[k] = v
	return v
}

// requestKey is the label tuple of apiserver_request_total.
type requestKey struct {
	Labels
	code int
}

// requestChildren are the series one request is recorded in; sli and size
// are nil where upstream does not record them.
type requestChildren struct {
	total    prometheus.Counter
	duration prometheus.Observer
	sli      prometheus.Observer
	size     prometheus.Observer
}

// resourceKey is the label tuple of the families without dry_run.
type resourceKey struct {
	verb, group, version, resource, subresource, scope string
}

type gvrKey struct{ group, version, resource string }

// WatchRecorder counts the events of one watch's group, version and
// resource.
type WatchRecorder struct {
	total prometheus.Counter
	sizes prometheus.Observer
}

// Observe records one event of size bytes.
func (w *WatchRecorder) Observe(size int) {
	w.total.Inc()
	w.sizes.Observe(float64(size))
}

func (m *Metrics) initCaches() {
	m.requestChildren = newCache(func(k requestKey) *requestChildren {
		l := k.Labels
		c := &requestChildren{
			total:    m.requests.WithLabelValues(l.Verb, l.DryRun, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, Component, strconv.Itoa(k.code)),
			duration: m.duration.WithLabelValues(l.Verb, l.DryRun, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, Component),
		}
		// Dry runs stay out of the SLI, which has no dry_run label.
		if l.DryRun == "" {
			c.sli = m.sliDuration.WithLabelValues(l.Verb, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, Component)
		}
		// Only reads have their response sizes recorded.
		if l.Verb == verbGet || l.Verb == verbList {
			c.size = m.responseSizes.WithLabelValues(l.Verb, l.Group, l.Version, l.Resource, l.Subresource, l.Scope, Component)
		}
		return c
	})
	m.longRunningChildren = newCache(func(k resourceKey) prometheus.Gauge {
		return m.longRunning.WithLabelValues(k.verb, k.group, k.version, k.resource, k.subresource, k.scope, Component)
	})
	m.watchChildren = newCache(func(k gvrKey) *WatchRecorder {
		return &WatchRecorder{
			total: m.watchEvents.WithLabelValues(k.group, k.version, k.resource),
			sizes: m.watchEventSizes.WithLabelValues(k.group, k.version, k.resource),
		}
	})
	m.filterChildren = newCache(func(name string) prometheus.Observer {
		return m.filterDuration.WithLabelValues(name)
	})
}
