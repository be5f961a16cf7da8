package controlplane

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// startMemoryServer runs the whole control plane on the memory backend on a
// free loopback port and returns a protobuf clientset for it.
func startMemoryServer(tb testing.TB) kubernetes.Interface {
	tb.Helper()
	return kubernetes.New(startServer(tb, "memory").restClient("application/vnd.kubernetes.protobuf"))
}

// benchServer is a running control plane and its admin kubeconfig.
type benchServer struct {
	tb      testing.TB
	restCfg *rest.Config
}

// restClient returns a core/v1 REST client sending and accepting contentType.
func (s *benchServer) restClient(contentType string) rest.Interface {
	cfg := rest.CopyConfig(s.restCfg)
	cfg.ContentType = contentType
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		s.tb.Fatal(err)
	}
	return cs.CoreV1().RESTClient()
}

// startServer runs the whole control plane on backend ("memory" or
// "etcd3", an embedded etcd) with the watch cache on, on a free loopback
// port, and creates the namespace "bench".
// withoutControllers runs a test server with no in-process controller:
// for tests that pin what a write stores, which a controller acting on
// the object (the deployment controller annotating a Deployment) would
// change at a moment the test does not choose.
func withoutControllers(c *Config) { c.Controllers = []string{} }

func startServer(tb testing.TB, backend string, opts ...func(*Config)) *benchServer {
	tb.Helper()
	dir := tb.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	cfg := &Config{
		Out: pw, DataDir: dir, CertDir: filepath.Join(dir, "pki"),
		BindAddress: net.ParseIP("127.0.0.1"), SecurePort: 0,
		StorageBackend: backend, EtcdPrefix: "/registry", WatchCacheSize: 1000,
		RequestTimeout: time.Minute, MinRequestTimeout: 30 * time.Minute,
		MaxRequestBytes: 3 << 20,
	}
	// ServiceAccount admission gives every pod a token volume with a
	// random name, which the golden files of pod writes cannot hold.
	cfg.Security.DisableAdmissionPlugins = []string{"ServiceAccount"}
	for _, o := range opts {
		o(cfg)
	}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg); pw.Close() }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Run: %v", err)
		}
	})
	scanner := bufio.NewScanner(pr)
	for scanner.Scan() {
		if strings.HasPrefix(scanner.Text(), "kapi is ready") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	restCfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		tb.Fatal(err)
	}
	restCfg.QPS, restCfg.Burst = -1, -1
	s := &benchServer{tb: tb, restCfg: restCfg}
	cs := kubernetes.New(s.restClient("application/vnd.kubernetes.protobuf"))
	// A server restarted on the same storage finds it.
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		tb.Fatal(err)
	}
	return s
}

// The benchmarks go through everything a client request does: TLS, HTTP/2,
// the filter chain, the server chain, negotiation, the generic store and
// the memory backend.

func BenchmarkCreateConfigMap(b *testing.B) {
	cms := startMemoryServer(b).CoreV1().ConfigMaps("bench")
	i := 0
	for b.Loop() {
		i++
		if _, err := cms.Create(context.Background(), newBenchConfigMap(i), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetConfigMap(b *testing.B) {
	cms := startMemoryServer(b).CoreV1().ConfigMaps("bench")
	if _, err := cms.Create(context.Background(), newBenchConfigMap(0), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := cms.Get(context.Background(), "cm-0", metav1.GetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkList100ConfigMaps(b *testing.B) {
	cms := startMemoryServer(b).CoreV1().ConfigMaps("bench")
	for i := range 100 {
		if _, err := cms.Create(context.Background(), newBenchConfigMap(i), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		list, err := cms.List(context.Background(), metav1.ListOptions{})
		if err != nil || benchItems(list.Items) != 100 {
			b.Fatalf("list: %v (%d items)", err, len(list.Items))
		}
	}
}

// benchItems counts the benchmark's own ConfigMaps: the namespace also
// holds the kube-root-ca.crt the root CA publisher keeps in it.
func benchItems(items []corev1.ConfigMap) int {
	n := 0
	for _, cm := range items {
		if cm.Name != "kube-root-ca.crt" {
			n++
		}
	}
	return n
}

func newBenchConfigMap(i int) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i), Labels: map[string]string{"app": "bench"}},
		Data:       map[string]string{"payload": strings.Repeat("x", 1024)},
	}
}
