package metrics

import (
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestObjectCountLookup: the last successful count is kept for API
// Priority and Fairness; a failed count forgets it.
func TestObjectCountLookup(t *testing.T) {
	m, err := New(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	gr := schema.GroupResource{Resource: "configmaps"}
	if _, ok := m.ObjectCount(gr); ok {
		t.Fatal("count before counting")
	}
	m.SetObjectCount(gr, 250, nil)
	if n, ok := m.ObjectCount(gr); !ok || n != 250 {
		t.Fatalf("count %d %v, want 250", n, ok)
	}
	m.SetObjectCount(gr, 0, errors.New("etcd down"))
	if _, ok := m.ObjectCount(gr); ok {
		t.Fatal("count kept after a failed count")
	}
	var none *Metrics
	if _, ok := none.ObjectCount(gr); ok {
		t.Fatal("nil Metrics has a count")
	}
}
