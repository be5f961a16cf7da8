package etcd3

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/etcd3/embedded"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

var fsync = flag.Bool("etcd.fsync", false, "run the test etcd with fsync (slower, like production)")

// testClient talks to the one embedded etcd the package's tests share; each
// test gets its own key prefix.
var testClient *clientv3.Client

var prefixes atomic.Int64

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runWithEtcd(m))
}

func runWithEtcd(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kapi-etcd3-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	srv, err := embedded.StartWithOptions(context.Background(), embedded.Options{Dir: dir, UnsafeNoFsync: !*fsync})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer srv.Close()
	testClient = srv.Client()
	return storagetest.Run(m)
}

// newBackend returns a backend on a fresh key prefix of the shared etcd.
func newBackend(tb testing.TB) *Backend {
	b := New(testClient, fmt.Sprintf("/registry-test-%d", prefixes.Add(1)), nil)
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
