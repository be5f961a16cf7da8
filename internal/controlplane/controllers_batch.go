package controlplane

import (
	"context"

	"k8s.io/utils/clock"

	"github.com/kapi-dev/kapi/internal/controllers/cronjob"
	"github.com/kapi-dev/kapi/internal/controllers/job"
	"github.com/kapi-dev/kapi/internal/controllers/ttlafterfinished"
)

// Workers of the batch controllers, kube-controller-manager's defaults
// (--concurrent-job-syncs, --concurrent-cron-job-syncs,
// --concurrent-ttl-after-finished-syncs).
const (
	jobWorkers     = 5
	cronJobWorkers = 5
	ttlWorkers     = 5
)

// controllerClock is the clock the named controller runs on: the real
// one unless a test put another in controllerClocks.
func (c *Config) controllerClock(name string) clock.Clock {
	if clk, ok := c.controllerClocks[name]; ok {
		return clk
	}
	return clock.RealClock{}
}

// tickerClock is cc.clock for the work queues, which need tickers.
func (cc *controllerContext) tickerClock() clock.WithTicker {
	if clk, ok := cc.clock.(clock.WithTicker); ok {
		return clk
	}
	return clock.RealClock{}
}

func startJobController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("job-controller")
	if err != nil {
		return err
	}
	batch, core := cc.informers.factory.Batch().V1(), cc.informers.factory.Core().V1()
	c, err := job.New(client, batch.Jobs(), core.Pods(), cc.recorder("job-controller"), cc.tickerClock(), cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, jobWorkers)
	return nil
}

func startCronJobController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("cronjob-controller")
	if err != nil {
		return err
	}
	batch := cc.informers.factory.Batch().V1()
	c, err := cronjob.New(client, batch.CronJobs(), batch.Jobs(), cc.recorder("cronjob-controller"), cc.tickerClock(), cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, cronJobWorkers)
	return nil
}

func startTTLAfterFinishedController(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("ttl-after-finished-controller")
	if err != nil {
		return err
	}
	c, err := ttlafterfinished.New(client, cc.informers.factory.Batch().V1().Jobs(), cc.tickerClock(), cc.logger)
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go c.Run(ctx, ttlWorkers)
	return nil
}
