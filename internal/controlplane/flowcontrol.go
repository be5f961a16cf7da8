package controlplane

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/server"
	"github.com/kapi-dev/kapi/internal/server/flowcontrol"
	storagemetrics "github.com/kapi-dev/kapi/internal/storage/metrics"
)

// newFlowControl builds the API Priority and Fairness dispatcher, sized
// by the server's whole in-flight budget as upstream sizes it, or returns
// nil when APF is off (the max-in-flight limits then apply) or, for a
// Config built in code, when both limits are 0 (unlimited).
func newFlowControl(c *Config, reg prometheus.Registerer, storage *storagemetrics.Metrics) (*flowcontrol.Dispatcher, error) {
	serverCL := c.MaxRequestsInFlight + c.MaxMutatingRequestsInFlight
	if c.DisablePriorityAndFairness || serverCL <= 0 {
		return nil, nil
	}
	m, err := flowcontrol.NewMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("registering flow control metrics: %w", err)
	}
	return flowcontrol.New(flowcontrol.Options{ServerConcurrencyLimit: serverCL, Metrics: m, ObjectCount: storage.ObjectCount}), nil
}

// addFlowControlHooks serves the APF debug dumps and, once the server
// runs, feeds the dispatcher every FlowSchema and
// PriorityLevelConfiguration from the shared informers (re-reading both
// lists after any change) and re-divides seats by demand, in the hook
// upstream names priority-and-fairness-filter.
func addFlowControlHooks(s *server.GenericServer, d *flowcontrol.Dispatcher, si *sharedInformers, logger *slog.Logger) error {
	if d == nil {
		return nil
	}
	for path, h := range d.DebugHandlers() {
		s.Handler.NonAPIMux.Handle(path, h)
	}
	schemas := si.factory.Flowcontrol().V1().FlowSchemas()
	levels := si.factory.Flowcontrol().V1().PriorityLevelConfigurations()
	schemaInformer, levelInformer := schemas.Informer(), levels.Informer()
	return s.AddPostStartHook("priority-and-fairness-filter", func(hc server.PostStartHookContext) error {
		changed := make(chan struct{}, 1)
		poke := func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
		handler := cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { poke() },
			UpdateFunc: func(any, any) { poke() },
			DeleteFunc: func(any) { poke() },
		}
		for _, inf := range []cache.SharedIndexInformer{schemaInformer, levelInformer} {
			if _, err := inf.AddEventHandler(handler); err != nil {
				return err
			}
		}
		si.factory.StartWithContext(hc.Context)
		go d.Run(hc.Context)
		go func() {
			ctx := hc.Context
			if !waitForSync(ctx, schemaInformer, levelInformer) {
				return
			}
			poke()
			for {
				select {
				case <-ctx.Done():
					return
				case <-changed:
					applyFlowControlConfig(ctx, d, si, logger)
				}
			}
		}()
		return nil
	})
}

// applyFlowControlConfig hands the informers' current objects (shared:
// the dispatcher only reads them) to the dispatcher.
func applyFlowControlConfig(_ context.Context, d *flowcontrol.Dispatcher, si *sharedInformers, logger *slog.Logger) {
	fss, err := si.factory.Flowcontrol().V1().FlowSchemas().Lister().List(labels.Everything())
	if err != nil {
		logger.Error("listing flow schemas", "err", err)
		return
	}
	pls, err := si.factory.Flowcontrol().V1().PriorityLevelConfigurations().Lister().List(labels.Everything())
	if err != nil {
		logger.Error("listing priority levels", "err", err)
		return
	}
	d.Update(fss, pls)
}
