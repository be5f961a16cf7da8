package e2e

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/test/e2e/framework"
	"github.com/kapi-dev/kapi/test/tools/etcd/etcdcluster"
)

// startEtcdCluster runs an etcd cluster of n members as separate processes.
func startEtcdCluster(t *testing.T, n int) *etcdcluster.Cluster {
	t.Helper()
	return etcdcluster.Start(t, etcdcluster.Options{Members: n})
}

// TestDurabilityWhenMemberDies runs kapi on a 3-member etcd cluster,
// SIGKILLs one member while clients write, and checks that kapi keeps
// serving writes, that the member catches up after a restart, and that
// every acknowledged write is stored.
func TestDurabilityWhenMemberDies(t *testing.T) {
	cluster := startEtcdCluster(t, 3)
	k := framework.StartKapi(t, framework.WithArgs("--etcd-servers", strings.Join(cluster.Endpoints(), ",")))
	createNamespace(t, k.Clientset(), "durable")
	w := startWriters(t, k.RESTConfig(), "durable")
	w.waitAcks(t, 100, time.Minute)
	// The leader, so that kapi also rides out an election.
	victim := cluster.Leader()
	if victim < 0 {
		victim = 0
	}
	cluster.Kill(victim)
	// Writes keep being acknowledged with one member down.
	w.waitAcks(t, 300, time.Minute)
	cluster.Restart(victim)
	w.waitAcks(t, 400, time.Minute)
	w.halt()
	w.verify(t, k.Clientset())

	// The restarted member has every object: read it through kapi bound
	// to that member alone.
	k.Kill()
	alone := framework.StartKapi(t, framework.WithArgs("--etcd-servers", cluster.Endpoints()[victim]))
	w.verify(t, alone.Clientset())
}

// TestEtcdTLSAndCompaction runs kapi on an etcd that requires client
// certificates, given with --etcd-cafile, --etcd-certfile and
// --etcd-keyfile, and with a short --etcd-compaction-interval: kapi serves,
// and etcd's history before an early write is compacted away.
func TestEtcdTLSAndCompaction(t *testing.T) {
	cluster := etcdcluster.Start(t, etcdcluster.Options{Members: 1, TLS: true})
	ca, cert, key := cluster.TLSFiles()
	k := framework.StartKapi(t, framework.WithArgs(
		"--etcd-servers", strings.Join(cluster.Endpoints(), ","),
		"--etcd-cafile", ca, "--etcd-certfile", cert, "--etcd-keyfile", key,
		"--etcd-compaction-interval", "200ms"))
	cs := k.Clientset()
	createNamespace(t, cs, "tls")
	first, err := cs.CoreV1().ConfigMaps("tls").Create(context.Background(), newConfigMap("first"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := strconv.ParseInt(first.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	etcd := cluster.Client(t)
	deadline := time.Now().Add(time.Minute)
	for i := 0; ; i++ {
		// Writes move the revision on; the compactor compacts to the
		// revision it saw one interval earlier.
		if _, err := cs.CoreV1().ConfigMaps("tls").Create(context.Background(), newConfigMap(fmt.Sprintf("more-%d", i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err := etcd.Get(context.Background(), "/registry/configmaps/tls/first", clientv3.WithRev(rev))
		if errors.Is(err, rpctypes.ErrCompacted) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("revision %d is still readable a minute later (last error %v)", rev, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := cs.CoreV1().ConfigMaps("tls").Get(context.Background(), "first", metav1.GetOptions{}); err != nil {
		t.Fatalf("reading through kapi after compaction: %v", err)
	}
}

// TestEtcdTLSFileMissing: a CA file that does not exist stops kapi with a
// message naming the file.
func TestEtcdTLSFileMissing(t *testing.T) {
	bins := framework.RequireBinaries(t)
	out, err := exec.Command(bins.Kapi, "serve", "--data-dir", t.TempDir(), "--secure-port", strconv.Itoa(framework.FreePort(t)),
		"--etcd-servers", "https://127.0.0.1:1", "--etcd-cafile", "/nonexistent/ca.crt").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "/nonexistent/ca.crt") {
		t.Fatalf("kapi with a missing --etcd-cafile: err=%v, output:\n%s", err, out)
	}
}
