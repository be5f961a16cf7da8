package etcd3

import (
	"flag"
	"os"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/etcd3/etcdtest"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

var fsync = flag.Bool("etcd.fsync", false, "run the test etcd with fsync (slower, like production)")

// shared is the one embedded etcd the package's tests share; each test
// gets its own key prefix.
var shared etcdtest.Etcd

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(shared.Main(m, *fsync))
}

// newBackend returns a backend on a fresh key prefix of the shared etcd,
// recording metrics, so every test runs the recording too.
func newBackend(tb testing.TB) *Backend {
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		tb.Fatal(err)
	}
	b := NewWithOptions(shared.Client(), Options{Prefix: shared.NewPrefix("registry-test"), Metrics: m})
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return b
}

func TestConformance(t *testing.T) {
	storagetest.RunTests(t, func(t *testing.T) storage.Backend { return newBackend(t) })
}

func BenchmarkCreate(b *testing.B) { storagetest.BenchmarkCreate(b, newBackend(b)) }
func BenchmarkGet(b *testing.B)    { storagetest.BenchmarkGet(b, newBackend(b)) }
func BenchmarkList(b *testing.B)   { storagetest.BenchmarkList(b, newBackend(b)) }
