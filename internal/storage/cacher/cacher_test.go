package cacher

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/etcd3"
	"github.com/kapi-dev/kapi/internal/storage/etcd3/embedded"
	"github.com/kapi-dev/kapi/internal/storage/memory"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// testClient talks to the one embedded etcd the package's tests share; each
// test gets its own key prefix.
var testClient *clientv3.Client

var prefixes atomic.Int64

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(runWithEtcd(m))
}

func runWithEtcd(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kapi-cacher-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	srv, err := embedded.StartWithOptions(context.Background(), embedded.Options{Dir: dir, UnsafeNoFsync: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer srv.Close()
	testClient = srv.Client()
	return storagetest.Run(m)
}

// cachedBackend wraps inner in a cache backend closed when the test ends.
func cachedBackend(tb testing.TB, inner storage.Backend) *Backend {
	b := NewBackend(inner, Options{})
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
			prefix := fmt.Sprintf("/registry-cacher-test-%d", prefixes.Add(1))
			return cachedBackend(t, etcd3.New(testClient, prefix, nil))
		})
	})
}
