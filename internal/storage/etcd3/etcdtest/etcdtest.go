// Package etcdtest gives a storage test package one embedded etcd shared by
// all its tests (each test takes its own key prefix), started in TestMain
// and checked for leaked storage goroutines at the end.
package etcdtest

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kapi-dev/kapi/internal/storage/etcd3/embedded"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// Etcd is the shared etcd of a test package.
type Etcd struct {
	client   *clientv3.Client
	prefixes atomic.Int64
}

// Client is the client connected to the shared etcd; valid once Main runs
// the tests.
func (e *Etcd) Client() *clientv3.Client { return e.client }

// NewPrefix returns a key prefix no other test of the process uses.
func (e *Etcd) NewPrefix(name string) string {
	return fmt.Sprintf("/%s-%d", name, e.prefixes.Add(1))
}

// Main starts etcd (without fsync unless fsync is set: a test etcd need not
// survive a power cut), runs m with the storage goroutine-leak check, and
// stops etcd. Call it from TestMain and pass the result to os.Exit.
func (e *Etcd) Main(m *testing.M, fsync bool) int {
	dir, err := os.MkdirTemp("", "kapi-etcd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	srv, err := embedded.StartWithOptions(context.Background(), embedded.Options{Dir: dir, UnsafeNoFsync: !fsync})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer srv.Close()
	e.client = srv.Client()
	return storagetest.Run(m)
}
