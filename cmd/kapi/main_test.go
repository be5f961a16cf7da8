package main

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestDefaultRegistryGathers: the registrations the binary's packages
// make in the default Prometheus registry at init (deferred by
// promdefer) all go through on the first gather, as they would have at
// once, and include etcd's, which the etcd drop-in's /metrics serves.
func TestDefaultRegistryGathers(t *testing.T) {
	mfs, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatalf("gathering the default registry: %v", err)
	}
	names := map[string]bool{}
	for _, mf := range mfs {
		names[mf.GetName()] = true
	}
	for _, want := range []string{"etcd_server_has_leader", "etcd_mvcc_db_total_size_in_bytes", "go_goroutines", "process_cpu_seconds_total"} {
		if !names[want] {
			t.Errorf("the default registry lacks %s (%d families)", want, len(mfs))
		}
	}
}
