package controlplane

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/internal/controllers/rootcapublisher"
	"github.com/kapi-dev/kapi/internal/storage/etcd3/embedded"
)

// electingServer is a kapi server on a shared etcd whose controllers run
// under the leader lease as id.
type electingServer struct {
	client *kubernetes.Clientset
	ca     string // the CA its root CA publisher publishes
	stop   func()
}

func startElectingServer(t *testing.T, etcd []string, id string) *electingServer {
	t.Helper()
	return startConfiguredServer(t, id, func(c *Config) {
		c.StorageBackend, c.EtcdServers = "etcd3", etcd
		c.Controllers = []string{"root-ca-cert-publisher"}
		c.LeaderElection = LeaderElectionConfig{
			LeaderElect: true, Identity: id,
			LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 100 * time.Millisecond,
		}
	})
}

// startConfiguredServer runs a server on a config edit changes; it stops
// with the test, or earlier through stop.
func startConfiguredServer(t *testing.T, name string, edit func(*Config)) *electingServer {
	t.Helper()
	dir := t.TempDir()
	ready := make(chan *rest.Config, 1)
	cfg := &Config{
		Out: io.Discard, DataDir: dir, CertDir: filepath.Join(dir, "pki"),
		BindAddress: net.ParseIP("127.0.0.1"), SecurePort: 0,
		StorageBackend: "memory", EtcdPrefix: "/registry", WatchCacheSize: 100,
		RequestTimeout: time.Minute, MinRequestTimeout: 30 * time.Minute, MaxRequestBytes: 3 << 20,
		Ready: func(c *rest.Config) { ready <- c },
	}
	edit(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg) }()
	var restCfg *rest.Config
	select {
	case restCfg = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("server %s: %v", name, err)
	}
	stopped := false
	s := &electingServer{client: kubernetes.NewForConfigOrDie(restCfg), ca: string(restCfg.CAData), stop: func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server %s: %v", name, err)
		}
	}}
	t.Cleanup(s.stop)
	return s
}

func leaseHolder(ctx context.Context, cs kubernetes.Interface) (string, error) {
	l, err := cs.CoordinationV1().Leases("kube-system").Get(ctx, "kube-controller-manager", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return "", err
	}
	return *l.Spec.HolderIdentity, nil
}

// TestControllersTakeTurnsUnderTheLeaderLease runs two servers on one
// etcd, each with its own CA and the root CA publisher under
// kube-controller-manager's Lease: the first holds it and publishes its
// CA; the second is ready while it waits and does not publish; when the
// first shuts down it releases the lease, the second takes over and
// publishes its CA.
func TestControllersTakeTurnsUnderTheLeaderLease(t *testing.T) {
	etcd, err := embedded.StartWithOptions(context.Background(), embedded.Options{Dir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = etcd.Close() })

	a := startElectingServer(t, etcd.Endpoints(), "kapi-a")
	ready := time.Now()
	poll(t, "a holds the lease", func(ctx context.Context) (bool, error) {
		h, err := leaseHolder(ctx, a.client)
		return h == "kapi-a", err
	})
	t.Logf("a held the free lease %v after it was ready (polled every 20ms)", time.Since(ready))
	b := startElectingServer(t, etcd.Endpoints(), "kapi-b")
	ctx := context.Background()
	if _, err := b.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "kube-root-ca.crt published by a", func(ctx context.Context) (bool, error) {
		cm, err := b.client.CoreV1().ConfigMaps("x").Get(ctx, rootcapublisher.ConfigMapName, metav1.GetOptions{})
		return err == nil && cm.Data[rootcapublisher.DataKey] == a.ca, err
	})
	// Were b's publisher running too, the two would fight over the
	// ConfigMap with their different CAs.
	if a.ca == b.ca {
		t.Fatal("the two servers share a CA: the test cannot tell them apart")
	}
	if h, err := leaseHolder(ctx, b.client); err != nil || h != "kapi-a" {
		t.Fatalf("lease holder %q (%v), want kapi-a", h, err)
	}

	a.stop()
	poll(t, "b holds the lease", func(ctx context.Context) (bool, error) {
		h, err := leaseHolder(ctx, b.client)
		return h == "kapi-b", err
	})
	poll(t, "kube-root-ca.crt republished by b", func(ctx context.Context) (bool, error) {
		cm, err := b.client.CoreV1().ConfigMaps("x").Get(ctx, rootcapublisher.ConfigMapName, metav1.GetOptions{})
		return err == nil && cm.Data[rootcapublisher.DataKey] == b.ca, err
	})
}

// TestControllersStopAndReturnWhenLeadershipIsLost: another holder takes
// the Lease; the server stops its controllers but keeps serving, and
// once that holder's lease runs out it leads again and its controllers
// act again.
func TestControllersStopAndReturnWhenLeadershipIsLost(t *testing.T) {
	etcd, err := embedded.StartWithOptions(context.Background(), embedded.Options{Dir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = etcd.Close() })
	a := startElectingServer(t, etcd.Endpoints(), "kapi-a")
	poll(t, "a holds the lease", func(ctx context.Context) (bool, error) {
		h, err := leaseHolder(ctx, a.client)
		return h == "kapi-a", err
	})
	leases := a.client.CoordinationV1().Leases("kube-system")
	poll(t, "an intruder takes the lease", func(ctx context.Context) (bool, error) {
		l, err := leases.Get(ctx, "kube-controller-manager", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		intruder, now := "intruder", metav1.NewMicroTime(time.Now())
		l.Spec.HolderIdentity, l.Spec.RenewTime, l.Spec.AcquireTime = &intruder, &now, &now
		_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
		return err == nil, err
	})
	// a's elector acquires anew (a transition from the intruder), which
	// it does only after its previous term, and its controllers' context,
	// ended.
	poll(t, "a leads again after the intruder's lease ran out", func(ctx context.Context) (bool, error) {
		l, err := leases.Get(ctx, "kube-controller-manager", metav1.GetOptions{})
		return err == nil && *l.Spec.HolderIdentity == "kapi-a" && l.Spec.LeaseTransitions != nil && *l.Spec.LeaseTransitions >= 1, err
	})
	if _, err := a.client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "kube-root-ca.crt published by the returning controllers", func(ctx context.Context) (bool, error) {
		cm, err := a.client.CoreV1().ConfigMaps("after").Get(ctx, rootcapublisher.ConfigMapName, metav1.GetOptions{})
		return err == nil && cm.Data[rootcapublisher.DataKey] == a.ca, err
	})
}
