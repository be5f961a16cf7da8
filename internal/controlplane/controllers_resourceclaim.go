package controlplane

import (
	"context"

	"github.com/kapi-dev/kapi/internal/controllers/resourceclaim"
)

// startResourceClaimController runs kube-controller-manager's
// resourceclaim controller. Upstream starts it only with the
// DynamicResourceAllocation feature, which is GA and on in 1.37, so "*"
// includes it here too.
func startResourceClaimController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("resource-claim-controller")
	if err != nil {
		return err
	}
	f := cc.informers.factory
	c, err := resourceclaim.New(client, f.Core().V1().Pods(), f.Resource().V1().ResourceClaims(), f.Resource().V1().ResourceClaimTemplates(),
		cc.recorder("resource_claim"), cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, resourceclaim.Workers)
	return nil
}
