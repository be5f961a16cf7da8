// Package promdefer defers the registrations made in Prometheus's default
// registry until something gathers it. The packages of the kapi binary
// (etcd's server above all) register some 300 collectors there from
// their init functions, one Describe round each: 5-7 ms of every kapi
// process's start, the drop-ins' included, spent on metrics that only the
// etcd drop-in's /metrics ever serves. Registrations are recorded and made
// on the first Gather of prometheus.DefaultGatherer (etcd's /metrics
// handler) or Unregister, in their order; from then on they go straight
// through. A registration the registry refuses (a duplicate a
// dependency's init would have panicked on) makes that Gather fail with
// the error instead. Only the kapi command imports this package, for its
// init.
package promdefer

import (
	"errors"
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

var def = &deferred{registry: prometheus.DefaultRegisterer, gatherer: prometheus.DefaultGatherer}

func init() {
	prometheus.DefaultRegisterer = def
	prometheus.DefaultGatherer = def
}

// deferred is the default registerer and gatherer while registrations
// wait, and a pass-through once they were made.
type deferred struct {
	registry prometheus.Registerer
	gatherer prometheus.Gatherer

	mu       sync.Mutex
	pending  []prometheus.Collector
	flushed  bool
	flushErr error
}

func (d *deferred) Register(c prometheus.Collector) error {
	d.mu.Lock()
	if !d.flushed {
		d.pending = append(d.pending, c)
		d.mu.Unlock()
		return nil
	}
	d.mu.Unlock()
	return d.registry.Register(c)
}

func (d *deferred) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := d.Register(c); err != nil {
			panic(err)
		}
	}
}

func (d *deferred) Unregister(c prometheus.Collector) bool {
	_ = d.flush()
	return d.registry.Unregister(c)
}

func (d *deferred) Gather() ([]*dto.MetricFamily, error) {
	err := d.flush()
	mfs, gerr := d.gatherer.Gather()
	return mfs, errors.Join(err, gerr)
}

// flush makes the recorded registrations, once, and reports the ones the
// registry refused.
func (d *deferred) flush() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.flushed {
		return d.flushErr
	}
	d.flushed = true
	var errs []error
	for _, c := range d.pending {
		if err := d.registry.Register(c); err != nil {
			errs = append(errs, fmt.Errorf("registering %s in the default Prometheus registry: %w", describe(c), err))
		}
	}
	d.pending = nil
	d.flushErr = errors.Join(errs...)
	return d.flushErr
}

// describe names c by its first metric descriptor.
func describe(c prometheus.Collector) string {
	ch := make(chan *prometheus.Desc)
	go func() {
		c.Describe(ch)
		close(ch)
	}()
	name := fmt.Sprintf("%T", c)
	first := true
	for desc := range ch {
		if first {
			name = desc.String()
			first = false
		}
	}
	return name
}
