package controlplane

import (
	"context"

	"github.com/kapi-dev/kapi/internal/controllers/scheduler"
)

// startScheduler runs kapi's built-in scheduler (kube-scheduler's default
// profile) on the shared informers. It is not one of the
// kube-controller-manager controllers of inProcessControllers: the
// simulated-nodes hook starts it.
func startScheduler(ctx context.Context, cc *controllerContext) error {
	client, err := cc.client("scheduler")
	if err != nil {
		return err
	}
	s, err := scheduler.New(client, cc.events.seriesRecorder(scheduler.SchedulerName), cc.informers.factory, scheduler.Options{
		Clock:  cc.tickerClock(),
		Logger: cc.logger,
	})
	if err != nil {
		return err
	}
	cc.startInformers(ctx)
	go s.Run(ctx)
	return nil
}
