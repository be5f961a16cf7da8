package controlplane

import (
	"context"

	"github.com/kapi-dev/kapi/internal/controllers/deployment"
	"github.com/kapi-dev/kapi/internal/controllers/replicaset"
)

// Workers of the apps controllers, kube-controller-manager's defaults
// (--concurrent-replicaset-syncs, --concurrent-rc-syncs,
// --concurrent-deployment-syncs).
const (
	replicaSetWorkers = 5
	rcWorkers         = 5
	deploymentWorkers = 5
)

func startReplicaSetController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("replicaset-controller")
	if err != nil {
		return err
	}
	f := cc.informers.factory
	c, err := replicaset.NewReplicaSet(client, f.Apps().V1().ReplicaSets(), f.Core().V1().Pods(), cc.recorder("replicaset-controller"), cc.clock, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, replicaSetWorkers)
	return nil
}

func startReplicationController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("replication-controller")
	if err != nil {
		return err
	}
	f := cc.informers.factory
	c, err := replicaset.NewReplicationController(client, f.Core().V1().ReplicationControllers(), f.Core().V1().Pods(), cc.recorder("replication-controller"), cc.clock, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, rcWorkers)
	return nil
}

func startDeploymentController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("deployment-controller")
	if err != nil {
		return err
	}
	f := cc.informers.factory
	c, err := deployment.New(client, f.Apps().V1().Deployments(), f.Apps().V1().ReplicaSets(), f.Core().V1().Pods(), cc.recorder("deployment-controller"), cc.clock, cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, deploymentWorkers)
	return nil
}
