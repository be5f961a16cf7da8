package controlplane

import (
	"context"

	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/resourcequota"
	"github.com/kapi-dev/kapi/internal/quota"
)

// resourceQuotaWorkers is kube-controller-manager's
// --concurrent-resource-quota-syncs.
const resourceQuotaWorkers = 5

// startResourceQuotaController keeps quota status current without
// kube-controller-manager: quotas and the pods, services and claims they
// measure come from the shared informers, any other counted resource from
// metadata informers started on demand (resolved through discovery).
func startResourceQuotaController(ctx context.Context, cc *controllerContext) error {
	clients, err := cc.metadataClients("resourcequota-controller")
	if err != nil {
		return err
	}
	cs, md, dc := clients.clientset, clients.metadata, clients.discovery
	registry := quota.NewRegistry(clock.RealClock{})
	ctrl, err := resourcequota.New(resourcequota.Config{
		Client:   cs,
		Quotas:   cc.informers.factory.Core().V1().ResourceQuotas(),
		Registry: registry,
		Logger:   cc.logger,
	})
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	sources, err := resourcequota.NewInformerSources(cc.informers.factory, metadatainformer.NewSharedInformerFactory(md, 0),
		mapper, ctrl.Replenish, clock.RealClock{}, ctx.Done())
	if err != nil {
		return err
	}
	ctrl.SetSources(sources)
	// The shared factory may have started already: start what was added.
	cc.startInformers(ctx)
	go ctrl.Run(ctx, resourceQuotaWorkers)
	return nil
}
