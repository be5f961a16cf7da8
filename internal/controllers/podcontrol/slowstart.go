package podcontrol

import "sync"

// SlowStartInitialBatchSize is the first batch of SlowStartBatch.
const SlowStartInitialBatchSize = 1

// SlowStartBatch calls fn count times in concurrent batches of 1, 2, 4,
// ... so that a create that fails for every Pod (a quota, a webhook)
// fails once rather than count times: after a batch with a failure no
// further batch starts. It returns the number of calls that succeeded
// and the first error.
func SlowStartBatch(count, initialBatchSize int, fn func() error) (int, error) {
	remaining := count
	successes := 0
	for batch := min(remaining, initialBatchSize); batch > 0; batch = min(2*batch, remaining) {
		errs := make(chan error, batch)
		var wg sync.WaitGroup
		for range batch {
			wg.Go(func() {
				if err := fn(); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		successes += batch - len(errs)
		if len(errs) > 0 {
			return successes, <-errs
		}
		remaining -= batch
	}
	return successes, nil
}
