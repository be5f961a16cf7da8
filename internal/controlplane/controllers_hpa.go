package controlplane

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/scale"
	resourceclient "k8s.io/metrics/pkg/client/clientset/versioned/typed/metrics/v1beta1"
	customclient "k8s.io/metrics/pkg/client/custom_metrics"
	externalclient "k8s.io/metrics/pkg/client/external_metrics"

	"github.com/kapi-dev/kapi/internal/controllers/podautoscaler"
)

// hpaWorkers is --concurrent-horizontal-pod-autoscaler-syncs' default.
const hpaWorkers = 5

// startHorizontalPodAutoscalerController runs the HPA controller over the
// scale subresource and the (absent unless aggregated) metrics APIs, as
// kube-controller-manager wires it.
func startHorizontalPodAutoscalerController(ctx context.Context, cc *controllerContext) error {
	const agent = "horizontal-pod-autoscaler"
	client, err := cc.client(agent)
	if err != nil {
		return err
	}
	// The scale and metrics clients speak JSON: metrics types have no
	// protobuf encoding.
	cfg := rest.CopyConfig(cc.loopback)
	cfg.UserAgent = "kapi/" + agent
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	cached := memory.NewMemCacheClient(dc)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(cached)
	scales, err := scale.NewForConfig(cfg, mapper, dynamic.LegacyAPIPathResolverFunc, scale.NewDiscoveryScaleKindResolver(cached))
	if err != nil {
		return err
	}
	metrics, err := hpaMetricsClient(ctx, cfg, dc, mapper, cc.config.hpaSyncPeriod())
	if err != nil {
		return err
	}
	f := cc.informers.factory
	c, err := podautoscaler.New(podautoscaler.Config{
		Client: client, Scales: scales, Mapper: mapper, Metrics: metrics,
		HPAs: f.Autoscaling().V2().HorizontalPodAutoscalers(), Pods: f.Core().V1().Pods(),
		Recorder:   cc.recorder(podautoscaler.Component),
		SyncPeriod: cc.config.hpaSyncPeriod(), Clock: cc.tickerClock(), Logger: cc.logger,
	})
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, hpaWorkers)
	return nil
}

// hpaMetricsClient builds the clients of the three metrics APIs; the
// custom metrics API's versions are rediscovered every sync period, as
// upstream does.
func hpaMetricsClient(ctx context.Context, cfg *rest.Config, dc discovery.DiscoveryInterface, mapper *restmapper.DeferredDiscoveryRESTMapper, period time.Duration) (podautoscaler.MetricsClient, error) {
	res, err := resourceclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ext, err := externalclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	versions := customclient.NewAvailableAPIsGetter(dc)
	go wait.Until(versions.Invalidate, period, ctx.Done())
	return podautoscaler.RESTMetricsClient{
		Resource: res,
		Custom:   customclient.NewForConfig(cfg, mapper, versions),
		External: ext,
	}, nil
}

// hpaSyncPeriod is --horizontal-pod-autoscaler-sync-period, 15s unless set.
func (c *Config) hpaSyncPeriod() time.Duration {
	if c.HorizontalPodAutoscalerSyncPeriod > 0 {
		return c.HorizontalPodAutoscalerSyncPeriod
	}
	return podautoscaler.DefaultSyncPeriod
}
