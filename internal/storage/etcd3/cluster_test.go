package etcd3

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/cacher"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
	"github.com/kapi-dev/kapi/test/tools/etcd/etcdcluster"
)

// The tests in this file run a real 3-member etcd cluster, each member its
// own process, so that members can die.

func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts an etcd cluster of separate processes")
	}
}

// newBackendOn returns a backend on client with a fresh key prefix.
func newBackendOn(tb testing.TB, client *clientv3.Client) *Backend {
	b := New(client, shared.NewPrefix("registry-test"), nil)
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return b
}

// TestConformanceCluster runs the suite on the cluster directly and
// through the watch cache.
func TestConformanceCluster(t *testing.T) {
	skipShort(t)
	client := etcdcluster.Start(t, etcdcluster.Options{}).Client(t)
	t.Run("etcd3", func(t *testing.T) {
		storagetest.RunTests(t, func(t *testing.T) storage.Backend { return newBackendOn(t, client) })
	})
	t.Run("watch-cache", func(t *testing.T) {
		storagetest.RunTests(t, func(t *testing.T) storage.Backend {
			b := cacher.NewBackend(newBackendOn(t, client), cacher.Options{})
			t.Cleanup(func() { _ = b.Close() })
			return b
		})
	})
}

// configMaps writes and reads configmaps through a backend and remembers
// what it wrote.
type configMaps struct {
	store   storage.Interface
	written map[string]string // name -> data["v"]
}

func newConfigMaps(t *testing.T, b *Backend) *configMaps {
	t.Helper()
	store, err := b.ForResource(storagetest.ConfigMapResource())
	if err != nil {
		t.Fatalf("ForResource: %v", err)
	}
	return &configMaps{store: store, written: map[string]string{}}
}

// write creates or replaces configmap name with value; it is idempotent,
// so a write that failed halfway can be repeated.
func (c *configMaps) write(ctx context.Context, name, value string) error {
	err := c.store.GuaranteedUpdate(ctx, storagetest.ConfigMapKey("default", name), &corev1.ConfigMap{}, true, nil,
		func(in runtime.Object, _ storage.ResponseMeta) (runtime.Object, error) {
			cm := in.(*corev1.ConfigMap).DeepCopy()
			cm.Namespace, cm.Name = "default", name
			cm.Data = map[string]string{"v": value}
			return cm, nil
		})
	if err == nil {
		c.written[name] = value
	}
	return err
}

// mustWriteAndRead writes configmap name and reads it back, both first
// time.
func (c *configMaps) mustWriteAndRead(t *testing.T, name, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := c.write(ctx, name, value); err != nil {
		t.Fatalf("writing %s: %v", name, err)
	}
	got := &corev1.ConfigMap{}
	if err := c.store.Get(ctx, storagetest.ConfigMapKey("default", name), storage.GetOptions{}, got); err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	if got.Data["v"] != value {
		t.Fatalf("read %s = %q, want %q", name, got.Data["v"], value)
	}
}

// writeEventually retries a write until the cluster takes it. Requests in
// flight to a member as it dies fail or time out, and so do proposals the
// dead leader had not committed; kube-apiserver's clients retry the same
// way.
func (c *configMaps) writeEventually(t *testing.T, name, value string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		err := c.write(ctx, name, value)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("writing %s: %v", name, err)
		}
	}
}

// list returns every configmap's data["v"] by name.
func list(t *testing.T, store storage.Interface) map[string]string {
	t.Helper()
	var l corev1.ConfigMapList
	if err := store.GetList(t.Context(), "/configmaps/", storage.ListOptions{Recursive: true, Predicate: storage.Everything}, &l); err != nil {
		t.Fatalf("GetList: %v", err)
	}
	got := map[string]string{}
	for _, cm := range l.Items {
		got[cm.Name] = cm.Data["v"]
	}
	return got
}

func TestClusterSurvivesMemberKill(t *testing.T) {
	skipShort(t)
	cluster := etcdcluster.Start(t, etcdcluster.Options{})
	endpoints := cluster.Endpoints()
	backend := newBackendOn(t, cluster.Client(t))
	cms := newConfigMaps(t, backend)
	cms.mustWriteAndRead(t, "before", "0")

	leader := cluster.Leader()
	if leader < 0 {
		t.Fatal("no member reports a leader")
	}
	victims := []struct {
		role   string
		member func() int
	}{
		{"follower", func() int { return (leader + 1) % len(endpoints) }},
		{"leader", cluster.Leader},
	}
	for _, v := range victims {
		victim := v.member()
		if victim < 0 {
			t.Fatalf("killing the %s: no member reports a leader", v.role)
		}
		t.Logf("killing the %s, member %d", v.role, victim)
		cluster.Kill(victim)
		cms.writeEventually(t, v.role+"-killed", "1")
		for i := range 10 {
			cms.mustWriteAndRead(t, fmt.Sprintf("%s-down-%d", v.role, i), fmt.Sprint(i))
		}
		cms.mustWriteAndRead(t, "before", v.role+" down")

		cluster.Restart(victim)
		// The restarted member alone must hold everything written.
		one, err := NewClient(ClientConfig{Endpoints: endpoints[victim : victim+1]})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = one.Close() })
		onOne := New(one, backend.kv.prefix, nil)
		t.Cleanup(func() { _ = onOne.Close() })
		store, err := onOne.ForResource(storagetest.ConfigMapResource())
		if err != nil {
			t.Fatal(err)
		}
		if got := list(t, store); !maps.Equal(got, cms.written) {
			t.Errorf("after restarting the %s, member %d holds %v, want %v", v.role, victim, got, cms.written)
		}
	}
}

func TestClusterTLS(t *testing.T) {
	skipShort(t)
	cluster := etcdcluster.Start(t, etcdcluster.Options{TLS: true})
	ca, cert, key := cluster.TLSFiles()
	endpoints := cluster.Endpoints()

	client, err := NewClient(ClientConfig{Endpoints: endpoints, CAFile: ca, CertFile: cert, KeyFile: key})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(func() { _ = client.Close() })
	newConfigMaps(t, newBackendOn(t, client)).mustWriteAndRead(t, "tls", "v")

	// The members require a client certificate.
	anonymous, err := NewClient(ClientConfig{Endpoints: endpoints, CAFile: ca, DialTimeout: time.Second})
	if err != nil {
		t.Fatalf("NewClient without a certificate: %v", err)
	}
	t.Cleanup(func() { _ = anonymous.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := anonymous.Get(ctx, "/"); err == nil {
		t.Error("a client without a certificate could read")
	}

	missing := filepath.Join(t.TempDir(), "missing-ca.crt")
	_, err = NewClient(ClientConfig{Endpoints: endpoints, CAFile: missing, CertFile: cert, KeyFile: key})
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("NewClient with a missing CA file: error %v, want one naming %s", err, missing)
	}
}
