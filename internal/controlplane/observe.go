package controlplane

import (
	"context"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kapi-dev/kapi/internal/server"
	"github.com/kapi-dev/kapi/internal/server/healthz"
	"github.com/kapi-dev/kapi/internal/storage/etcd3"
	"github.com/kapi-dev/kapi/internal/storage/metrics"
)

// newMetricsRegistry is the registry /metrics serves: kapi's own metrics
// plus the Go runtime and process collectors every Prometheus target has.
func newMetricsRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// installStorageObservers serves /metrics and adds the storage health
// checks kube-apiserver has: "etcd" on /healthz, /livez and /readyz, and
// "etcd-readiness" on /readyz, each bounded by its timeout flag, and the
// etcd database size metric. The object counter runs as a post-start
// hook.
func installStorageObservers(s *server.GenericServer, c *Config, deps chainDeps) error {
	s.Handler.NonAPIMux.Handle("/metrics", promhttp.HandlerFor(deps.registry, promhttp.HandlerOpts{}))
	if client := deps.storage.etcd; client != nil {
		size := func(ctx context.Context) (int64, error) { return etcd3.DBSize(ctx, client) }
		if err := deps.registry.Register(metrics.NewSizeCollector(size, deps.logger)); err != nil {
			return err
		}
		health := deps.storage.etcdCheck(c.EtcdHealthcheckTimeout)
		ready := deps.storage.etcdCheck(c.EtcdReadycheckTimeout)
		if err := s.AddHealthChecks(healthz.NamedCheck("etcd", func(r *http.Request) error { return health(r.Context()) })); err != nil {
			return err
		}
		if err := s.AddReadyzChecks(healthz.NamedCheck("etcd-readiness", func(r *http.Request) error { return ready(r.Context()) })); err != nil {
			return err
		}
	}
	// Counting does not hold readiness, as upstream; the first count
	// waits until the server is ready (milliseconds later), as its ~60
	// requests to storage would compete with the start's own.
	ready := make(chan struct{})
	deps.whenReady(func() { close(ready) })
	return s.AddPostStartHook("storage-object-count-tracker-hook", func(hc server.PostStartHookContext) error {
		go func() {
			select {
			case <-ready:
			case <-hc.Context.Done():
				return
			}
			deps.getter.countObjects(hc.Context, deps.metrics)
			deps.getter.keepCountingObjects(hc.Context, deps.metrics)
		}()
		return nil
	})
}
