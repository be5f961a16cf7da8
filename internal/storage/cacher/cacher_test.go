package cacher

import (
	"flag"
	"os"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/etcd3"
	"github.com/kapi-dev/kapi/internal/storage/etcd3/etcdtest"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// shared is the one embedded etcd the package's tests share; each test
// gets its own key prefix.
var shared etcdtest.Etcd

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(shared.Main(m, false))
}

// cachedBackend wraps inner in a cache backend closed when the test ends,
// recording metrics, so every test runs the recording too.
func cachedBackend(tb testing.TB, inner storage.Backend) *Backend {
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		tb.Fatal(err)
	}
	b := NewBackend(inner, Options{Metrics: m})
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return b
}

func TestConformance(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		storagetest.RunTests(t, func(t *testing.T) storage.Backend {
			return cachedBackend(t, memory.New())
		})
	})
	t.Run("etcd3", func(t *testing.T) {
		storagetest.RunTests(t, func(t *testing.T) storage.Backend {
			prefix := shared.NewPrefix("registry-cacher-test")
			return cachedBackend(t, etcd3.New(shared.Client(), prefix, nil))
		})
	})
}
