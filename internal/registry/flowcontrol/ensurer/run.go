package ensurer

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
)

// Timing of the producer, as upstream's: the first round is retried every
// second for at most five minutes (the post-start hook waits for it), then
// a round runs every minute for the server's life.
const (
	RetryPeriod   = time.Second
	InitialBudget = 5 * time.Minute
	ResyncPeriod  = time.Minute
)

// Start waits for the listers, retries the first round until it succeeds
// and then keeps the configuration ensured every period until ctx ends,
// in a goroutine it owns.
func (e *Ensurer) Start(ctx context.Context, period time.Duration, synced ...cache.InformerSynced) error {
	first, cancel := context.WithTimeout(ctx, InitialBudget)
	defer cancel()
	if !cache.WaitForCacheSync(first.Done(), synced...) {
		return fmt.Errorf("APF bootstrap ensurer: caches did not sync")
	}
	err := wait.PollUntilContextCancel(first, RetryPeriod, true, func(ctx context.Context) (bool, error) {
		if err := e.Ensure(ctx); err != nil {
			e.logger.Info("APF bootstrap ensurer failed, retrying", "err", err)
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("unable to initialize APF bootstrap configuration: %w", err)
	}
	go wait.UntilWithContext(ctx, func(ctx context.Context) {
		if err := e.Ensure(ctx); err != nil && ctx.Err() == nil {
			e.logger.Info("APF bootstrap ensurer failed, will retry", "err", err)
		}
	}, period)
	return nil
}
