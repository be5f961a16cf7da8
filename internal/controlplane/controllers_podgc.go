package controlplane

import (
	"context"

	"github.com/kapi-dev/kapi/internal/controllers/podgc"
)

func startPodGC(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("pod-garbage-collector")
	if err != nil {
		return err
	}
	core := cc.informers.factory.Core().V1()
	c := podgc.New(client, core.Pods(), core.Nodes(), cc.config.TerminatedPodGCThreshold, cc.clock, cc.logger)
	cc.startInformers(ctx)
	go c.Run(ctx)
	return nil
}
