package controlplane

import (
	"fmt"
	"log/slog"

	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/flowschemastatus"
	"github.com/kapi-dev/kapi/internal/registry/flowcontrol/ensurer"
	"github.com/kapi-dev/kapi/internal/server"
)

// addFlowControlConfigHooks adds the two API Priority and Fairness
// configuration hooks kube-apiserver has, over the shared informers. They
// are part of the API server, not controllers --controllers can turn off:
//   - priority-and-fairness-config-producer creates and reconciles the
//     mandatory and suggested objects; the hook (and so /readyz) waits for
//     the first successful round, then a round runs every minute;
//   - priority-and-fairness-config-consumer keeps the FlowSchemas'
//     Dangling condition.
func addFlowControlConfigHooks(s *server.GenericServer, c *Config, si *sharedInformers, logger *slog.Logger) error {
	fc := si.factory.Flowcontrol().V1()
	schemas, levels := fc.FlowSchemas(), fc.PriorityLevelConfigurations()
	ens := ensurer.New(si.client.FlowcontrolV1(), levels.Lister(), schemas.Lister(), logger.With("component", "apf-config-producer"))
	synced := []cache.InformerSynced{schemas.Informer().HasSynced, levels.Informer().HasSynced}
	informers := []cache.SharedIndexInformer{schemas.Informer(), levels.Informer()}
	if err := s.AddPostStartHook("priority-and-fairness-config-producer", func(hc server.PostStartHookContext) error {
		period := ensurer.ResyncPeriod
		if c.apfEnsurePeriod > 0 {
			period = c.apfEnsurePeriod
		}
		// Waiting here first spares the ensurer's polled wait (100 ms a
		// tick) on the ready path; its own wait then passes at once.
		if !waitForSync(hc.Context, informers...) {
			return fmt.Errorf("APF bootstrap ensurer: caches did not sync")
		}
		return ens.Start(hc.Context, period, synced...)
	}); err != nil {
		return err
	}
	status, err := flowschemastatus.New(schemas, levels, si.client.FlowcontrolV1().FlowSchemas(), clock.RealClock{},
		logger.With("component", "apf-config-consumer"))
	if err != nil {
		return err
	}
	return s.AddPostStartHook("priority-and-fairness-config-consumer", func(hc server.PostStartHookContext) error {
		go status.Run(hc.Context)
		return nil
	})
}
