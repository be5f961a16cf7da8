package controlplane

import (
	"context"

	"github.com/kapi-dev/kapi/internal/controllers/endpoints"
	"github.com/kapi-dev/kapi/internal/controllers/endpointslice"
	"github.com/kapi-dev/kapi/internal/controllers/endpointslicemirroring"
)

// Workers of the endpoint controllers, kube-controller-manager's
// defaults (--concurrent-endpoint-syncs, --concurrent-service-endpoint-
// syncs, --mirroring-concurrent-service-endpoint-syncs).
const (
	endpointsWorkers     = 5
	endpointSliceWorkers = 5
	mirroringWorkers     = 5
)

func startEndpointsController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("endpoint-controller")
	if err != nil {
		return err
	}
	core := cc.informers.factory.Core().V1()
	c, err := endpoints.New(client, core.Pods(), core.Services(), core.Endpoints(), cc.recorder("endpoint-controller"), cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, endpointsWorkers)
	return nil
}

func startEndpointSliceController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("endpointslice-controller")
	if err != nil {
		return err
	}
	f := cc.informers.factory
	core := f.Core().V1()
	c, err := endpointslice.New(client, core.Pods(), core.Services(), core.Nodes(), f.Discovery().V1().EndpointSlices(),
		endpointslice.DefaultMaxEndpointsPerSlice, cc.recorder("endpoint-slice-controller"), cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, endpointSliceWorkers)
	return nil
}

func startEndpointSliceMirroringController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("endpointslicemirroring-controller")
	if err != nil {
		return err
	}
	f := cc.informers.factory
	core := f.Core().V1()
	c, err := endpointslicemirroring.New(client, core.Endpoints(), core.Services(), f.Discovery().V1().EndpointSlices(),
		endpointslicemirroring.DefaultMaxEndpointsPerSubset, cc.recorder("endpoint-slice-mirroring-controller"), cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, mirroringWorkers)
	return nil
}
