package e2e

import (
	"context"
	"crypto/tls"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kapi-dev/kapi/internal/bench/stats"
	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// dropInAssets lays out a KUBEBUILDER_ASSETS folder holding only kapi,
// twice by name: kube-apiserver and etcd.
func dropInAssets(t testing.TB) string {
	t.Helper()
	bins := framework.RequireBinaries(t)
	dir := t.TempDir()
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if err := os.Symlink(bins.Kapi, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestEnvtestDropIn runs an unmodified controller-runtime envtest against
// the drop-in assets: it starts, installs a CRD, serves a ConfigMap and a
// custom object through the config it returns, and stops.
func TestEnvtestDropIn(t *testing.T) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(databaseCRD), &crd); err != nil {
		t.Fatal(err)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    dropInAssets(t),
		CRDs:                     []*apiextensionsv1.CustomResourceDefinition{&crd},
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	start := time.Now()
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest Start: %v", err)
	}
	t.Logf("envtest Start with kapi assets: %v", time.Since(start))
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = env.Stop()
		}
	})

	// envtest probes health anonymously; upstream's
	// system:public-info-viewer binding lets RBAC allow that.
	anon := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for _, path := range []string{"/healthz", "/livez", "/readyz", "/version"} {
		resp, err := anon.Get(strings.TrimSuffix(cfg.Host, "/") + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("anonymous GET %s: %d, want 200", path, resp.StatusCode)
		}
	}

	c, err := client.New(cfg, client.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "envtest", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatalf("create ConfigMap: %v", err)
	}
	db := &unstructured.Unstructured{}
	db.SetGroupVersionKind(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Database"})
	db.SetNamespace("default")
	db.SetName("envtest")
	db.Object["spec"] = map[string]any{"size": int64(3)}
	if err := c.Create(ctx, db); err != nil {
		t.Fatalf("create Database: %v", err)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(db.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(db), got); err != nil {
		t.Fatalf("get Database: %v", err)
	}
	if size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size"); size != 3 {
		t.Errorf("Database spec.size = %d, want 3", size)
	}

	start = time.Now()
	stopped = true
	if err := env.Stop(); err != nil {
		t.Fatalf("envtest Stop: %v", err)
	}
	t.Logf("envtest Stop with kapi assets: %v", time.Since(start))
}

// BenchmarkEnvtestDropIn measures envtest Start and Stop with kapi as the
// assets; start-ms and stop-ms are per start/stop cycle.
func BenchmarkEnvtestDropIn(b *testing.B) {
	assets := dropInAssets(b)
	var starts, stops []time.Duration
	for b.Loop() {
		env := &envtest.Environment{BinaryAssetsDirectory: assets}
		t0 := time.Now()
		if _, err := env.Start(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := env.Stop(); err != nil {
			b.Fatal(err)
		}
		starts = append(starts, t1.Sub(t0))
		stops = append(stops, time.Since(t1))
	}
	b.ReportMetric(meanMillis(starts), "start-ms")
	b.ReportMetric(meanMillis(stops), "stop-ms")
	b.ReportMetric(float64(stats.Median(starts).Microseconds())/1000, "start-p50-ms")
	b.ReportMetric(float64(stats.Median(stops).Microseconds())/1000, "stop-p50-ms")
}

func meanMillis(ds []time.Duration) float64 {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return float64(sum.Microseconds()) / 1000 / float64(max(len(ds), 1))
}
