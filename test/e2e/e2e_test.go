// Package e2e holds black-box tests: they build the kapi binary and a real
// kubectl, start `kapi serve` as a user would, and talk to it with kubectl
// and client-go.
package e2e

import (
	"context"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// backends are the storage backends every REST-level test runs against.
var backends = []string{"memory", "etcd3"}

// TestREST runs the same REST-level suite against every backend.
func TestREST(t *testing.T) {
	suite := []struct {
		name string
		fn   func(*testing.T, *framework.Kapi)
	}{
		{"kubectl", kubectlWorkflow},
		{"kubectl-watch", kubectlWatch},
		{"client-go", clientGoCRUD},
		{"informer", informerSync},
		{"bad-input", badInput},
	}
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			k := framework.StartKapi(t, framework.WithStorageBackend(backend))
			for _, tc := range suite {
				t.Run(tc.name, func(t *testing.T) { tc.fn(t, k) })
			}
		})
	}
}

// TestRestartKeepsData stops kapi with SIGTERM and starts it again on the
// same data dir: objects, resourceVersions and the kubeconfig survive.
func TestRestartKeepsData(t *testing.T) {
	dir := t.TempDir()
	k := framework.StartKapi(t, framework.WithDataDir(dir))
	cs := k.Clientset()
	createNamespace(t, cs, "durable")
	cm, err := cs.CoreV1().ConfigMaps("durable").Create(context.Background(), newConfigMap("kept", "v", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Stop(); err != nil {
		t.Fatalf("kapi did not exit cleanly on SIGTERM: %v\n%s", err, k.Output())
	}

	k2 := framework.StartKapi(t, framework.WithDataDir(dir))
	got, err := k2.Clientset().CoreV1().ConfigMaps("durable").Get(context.Background(), "kept", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if got.ResourceVersion != cm.ResourceVersion || got.UID != cm.UID || got.Data["v"] != "1" {
		t.Fatalf("after restart got rv=%s uid=%s data=%v; want rv=%s uid=%s", got.ResourceVersion, got.UID, got.Data, cm.ResourceVersion, cm.UID)
	}
	if out, err := k2.Kubectl(t, "-n", "durable", "get", "cm", "kept"); err != nil {
		t.Fatalf("kubectl with the kubeconfig written before the restart: %v\n%s", err, out)
	}
}

func TestMain(m *testing.M) { os.Exit(framework.Main(m)) }
