package etcd3

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/storage"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

func TestRequestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	b := NewWithOptions(shared.Client(), Options{Prefix: shared.NewPrefix("registry-test"), Metrics: m})
	t.Cleanup(func() { _ = b.Close() })
	cfg := storagetest.ConfigMapResource()
	cfg.GroupResource = schema.GroupResource{Resource: "configmaps"}
	s, err := b.ForResource(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}
	if err := s.Create(t.Context(), "/configmaps/ns/a", cm, &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Get(t.Context(), "/configmaps/ns/a", storage.GetOptions{}, &corev1.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP etcd_requests_total [ALPHA] Etcd request counts for each operation and object type.
# TYPE etcd_requests_total counter
etcd_requests_total{group="",operation="create",resource="configmaps"} 1
etcd_requests_total{group="",operation="get",resource="configmaps"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "etcd_requests_total"); err != nil {
		t.Error(err)
	}
}
