package promdefer

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func counter(name string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: "test"})
}

// gathered reports whether name is among g's families.
func gathered(t *testing.T, g prometheus.Gatherer, name string) bool {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return true
		}
	}
	return false
}

// TestDeferredUntilGathered: registrations wait until the first Gather,
// which sees them; later ones go straight to the registry.
func TestDeferredUntilGathered(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	d := &deferred{registry: reg, gatherer: reg}
	early := counter("early_total")
	d.MustRegister(early)
	early.Inc()
	if gathered(t, reg, "early_total") {
		t.Fatal("registered before anything gathered")
	}
	if !gathered(t, d, "early_total") {
		t.Fatal("the first Gather lacks the deferred registration")
	}
	if err := d.Register(counter("late_total")); err != nil {
		t.Fatal(err)
	}
	if !gathered(t, reg, "late_total") {
		t.Error("a registration after the flush did not go straight through")
	}
	if err := d.Register(counter("late_total")); err == nil {
		t.Error("a duplicate after the flush was accepted")
	}
}

// TestDuplicateFailsGather: a duplicate the registry would have refused
// at once fails the first Gather with its error, and the rest is served.
func TestDuplicateFailsGather(t *testing.T) {
	reg := prometheus.NewRegistry()
	d := &deferred{registry: reg, gatherer: reg}
	d.MustRegister(counter("dup_total"), counter("dup_total"), counter("other_total"))
	_, err := d.Gather()
	if err == nil || !strings.Contains(err.Error(), "dup_total") {
		t.Fatalf("Gather error = %v, want the duplicate named", err)
	}
	if !gathered(t, reg, "other_total") {
		t.Error("the other registration was lost")
	}
}

// TestUnregisterFlushes: unregistering a deferred collector works as on
// the registry itself.
func TestUnregisterFlushes(t *testing.T) {
	reg := prometheus.NewRegistry()
	d := &deferred{registry: reg, gatherer: reg}
	c := counter("gone_total")
	d.MustRegister(c)
	if !d.Unregister(c) {
		t.Error("Unregister of a deferred collector = false")
	}
	if gathered(t, d, "gone_total") {
		t.Error("an unregistered collector is still gathered")
	}
}

// TestInstalled: the package's init put itself in front of the default
// registry.
func TestInstalled(t *testing.T) {
	if prometheus.DefaultRegisterer != prometheus.Registerer(def) || prometheus.DefaultGatherer != prometheus.Gatherer(def) {
		t.Error("the default registerer and gatherer are not the deferring ones")
	}
}
