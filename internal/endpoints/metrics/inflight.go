package metrics

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// inflight is apiserver_current_inflight_requests: upstream samples the
// highest number of executing requests of each kind once a second. Here
// each kind keeps its high-water mark per wall-clock second, rolled over by
// the first request of a new second, and a scrape reports the highest of
// the current and the previous second (or the current count when both are
// stale), so no goroutine has to tick.
type inflight struct {
	desc      *prometheus.Desc
	readOnly  watermark
	mutating  watermark
	nowSecond func() int64
}

func newInflight() *inflight {
	return &inflight{
		desc: prometheus.NewDesc("apiserver_current_inflight_requests",
			stable+"Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
			[]string{"request_kind"}, nil),
		nowSecond: func() int64 { return time.Now().Unix() },
	}
}

func (f *inflight) kind(mutating bool) *watermark {
	if mutating {
		return &f.mutating
	}
	return &f.readOnly
}

// Describe implements prometheus.Collector.
func (f *inflight) Describe(ch chan<- *prometheus.Desc) { ch <- f.desc }

// Collect implements prometheus.Collector.
func (f *inflight) Collect(ch chan<- prometheus.Metric) {
	now := f.nowSecond()
	ch <- prometheus.MustNewConstMetric(f.desc, prometheus.GaugeValue, float64(f.readOnly.value(now)), "readOnly")
	ch <- prometheus.MustNewConstMetric(f.desc, prometheus.GaugeValue, float64(f.mutating.value(now)), "mutating")
}

// watermark counts the executing requests of one kind and the most seen
// at once in the current and the previous second.
type watermark struct {
	current atomic.Int64
	high    atomic.Int64
	second  atomic.Int64

	mu       sync.Mutex // rolls the second over
	prevHigh int64
	prevSec  int64
}

func (w *watermark) add(now time.Time) {
	n := w.current.Add(1)
	if sec := now.Unix(); w.second.Load() != sec {
		w.roll(sec, n)
	}
	for {
		h := w.high.Load()
		if n <= h || w.high.CompareAndSwap(h, n) {
			return
		}
	}
}

func (w *watermark) done() { w.current.Add(-1) }

func (w *watermark) roll(sec, n int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if old := w.second.Load(); old != sec {
		w.prevHigh, w.prevSec = w.high.Swap(n), old
		w.second.Store(sec)
	}
}

func (w *watermark) value(now int64) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	v := w.current.Load()
	if sec := w.second.Load(); sec >= now-1 {
		v = max(v, w.high.Load())
		if w.prevSec >= now-1 {
			v = max(v, w.prevHigh)
		}
	}
	return v
}
