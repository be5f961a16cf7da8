package flowcontrol

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Stability levels as component-base writes them in front of HELP.
const (
	alpha = "[ALPHA] "
	beta  = "[BETA] "
)

var (
	requestDurationBuckets = []float64{0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30}
	queueLengthBuckets     = []float64{0, 10, 25, 50, 100, 250, 500, 1000}
	workSeatsBuckets       = []float64{1, 2, 4, 8, 16, 32, 64, 100}
	plfsLabels             = []string{"priority_level", "flow_schema"}
	plLabels               = []string{"priority_level"}
)

// Metrics are the apiserver_flowcontrol_* families, with upstream's
// names, labels, buckets and stability levels. A nil *Metrics records
// nothing.
type Metrics struct {
	rejected       *prometheus.CounterVec
	dispatched     *prometheus.CounterVec
	inQueue        *prometheus.GaugeVec
	inQueueSeats   *prometheus.GaugeVec
	queueLength    *prometheus.HistogramVec
	executing      *prometheus.GaugeVec
	executingSeats *prometheus.GaugeVec
	waitDuration   *prometheus.HistogramVec
	execDuration   *prometheus.HistogramVec
	workSeats      *prometheus.HistogramVec
	nominalLimit   *prometheus.GaugeVec
	lowerLimit     *prometheus.GaugeVec
	upperLimit     *prometheus.GaugeVec
	currentLimit   *prometheus.GaugeVec
	targetSeats    *prometheus.GaugeVec
	smoothedDemand *prometheus.GaugeVec

	children sync.Map // pairKey -> *pairMetrics
}

type pairKey struct{ level, schema string }

// pairMetrics are the children of one (priority level, flow schema), so a
// request costs a map look-up instead of label hashing in every vector.
type pairMetrics struct {
	level, schema string
	// rejected is looked up at rejection, so a pair never rejected has
	// no rejected_requests_total series, as upstream.
	rejected                                                                   *prometheus.CounterVec
	dispatched                                                                 prometheus.Counter
	inQueue, inQueueSeats, executing, executingSeats                           prometheus.Gauge
	waitExecuted, waitRejected, queueLength, execRegular, execWatch, workSeats prometheus.Observer
}

// NewMetrics creates the families and registers them on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	counter := func(name, help string, labels []string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "apiserver_flowcontrol_" + name, Help: help}, labels)
	}
	gauge := func(name, help string, labels []string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "apiserver_flowcontrol_" + name, Help: help}, labels)
	}
	histogram := func(name, help string, buckets []float64, labels []string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "apiserver_flowcontrol_" + name, Help: help, Buckets: buckets}, labels)
	}
	m := &Metrics{
		rejected:       counter("rejected_requests_total", beta+"Number of requests rejected by API Priority and Fairness subsystem", []string{"priority_level", "flow_schema", "reason"}),
		dispatched:     counter("dispatched_requests_total", beta+"Number of requests executed by API Priority and Fairness subsystem", plfsLabels),
		inQueue:        gauge("current_inqueue_requests", beta+"Number of requests currently pending in queues of the API Priority and Fairness subsystem", plfsLabels),
		inQueueSeats:   gauge("current_inqueue_seats", alpha+"Number of seats currently pending in queues of the API Priority and Fairness subsystem", plfsLabels),
		queueLength:    histogram("request_queue_length_after_enqueue", alpha+"Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued", queueLengthBuckets, plfsLabels),
		executing:      gauge("current_executing_requests", beta+"Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem", plfsLabels),
		executingSeats: gauge("current_executing_seats", beta+"Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem", plfsLabels),
		waitDuration:   histogram("request_wait_duration_seconds", beta+"Length of time a request spent waiting in its queue", requestDurationBuckets, []string{"priority_level", "flow_schema", "execute"}),
		execDuration:   histogram("request_execution_seconds", alpha+"Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem", requestDurationBuckets, []string{"priority_level", "flow_schema", "type"}),
		workSeats:      histogram("work_estimated_seats", alpha+"Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness", workSeatsBuckets, plfsLabels),
		nominalLimit:   gauge("nominal_limit_seats", beta+"Nominal number of execution seats configured for each priority level", plLabels),
		lowerLimit:     gauge("lower_limit_seats", alpha+"Configured lower bound on number of execution seats available to each priority level", plLabels),
		upperLimit:     gauge("upper_limit_seats", alpha+"Configured upper bound on number of execution seats available to each priority level", plLabels),
		currentLimit:   gauge("current_limit_seats", alpha+"current derived number of execution seats available to each priority level", plLabels),
		targetSeats:    gauge("target_seats", alpha+"Seat allocation targets", plLabels),
		smoothedDemand: gauge("demand_seats_smoothed", alpha+"Smoothed seat demands", plLabels),
	}
	for _, c := range []prometheus.Collector{
		m.rejected, m.dispatched, m.inQueue, m.inQueueSeats, m.queueLength, m.executing, m.executingSeats,
		m.waitDuration, m.execDuration, m.workSeats, m.nominalLimit, m.lowerLimit, m.upperLimit,
		m.currentLimit, m.targetSeats, m.smoothedDemand,
	} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// pair returns the cached children of (level, schema); nil for nil m.
func (m *Metrics) pair(level, schema string) *pairMetrics {
	if m == nil {
		return nil
	}
	k := pairKey{level, schema}
	if p, ok := m.children.Load(k); ok {
		return p.(*pairMetrics)
	}
	p := &pairMetrics{
		level:          level,
		schema:         schema,
		rejected:       m.rejected,
		dispatched:     m.dispatched.WithLabelValues(level, schema),
		inQueue:        m.inQueue.WithLabelValues(level, schema),
		inQueueSeats:   m.inQueueSeats.WithLabelValues(level, schema),
		executing:      m.executing.WithLabelValues(level, schema),
		executingSeats: m.executingSeats.WithLabelValues(level, schema),
		waitExecuted:   m.waitDuration.WithLabelValues(level, schema, "true"),
		waitRejected:   m.waitDuration.WithLabelValues(level, schema, "false"),
		queueLength:    m.queueLength.WithLabelValues(level, schema),
		execRegular:    m.execDuration.WithLabelValues(level, schema, "regular"),
		execWatch:      m.execDuration.WithLabelValues(level, schema, "watch"),
		workSeats:      m.workSeats.WithLabelValues(level, schema),
	}
	actual, _ := m.children.LoadOrStore(k, p)
	return actual.(*pairMetrics)
}

func (p *pairMetrics) reject(reason string) {
	if p != nil {
		p.rejected.WithLabelValues(p.level, p.schema, reason).Inc()
	}
}

// setLimits records a level's seat limits.
func (m *Metrics) setLimits(level string, nominal, lower, upper, current int) {
	if m == nil {
		return
	}
	m.nominalLimit.WithLabelValues(level).Set(float64(nominal))
	m.lowerLimit.WithLabelValues(level).Set(float64(lower))
	m.upperLimit.WithLabelValues(level).Set(float64(upper))
	m.currentLimit.WithLabelValues(level).Set(float64(current))
}

func (m *Metrics) setBorrowing(level string, target, smoothed float64) {
	if m == nil {
		return
	}
	m.targetSeats.WithLabelValues(level).Set(target)
	m.smoothedDemand.WithLabelValues(level).Set(smoothed)
}
