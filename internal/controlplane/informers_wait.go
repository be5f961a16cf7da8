package controlplane

import (
	"context"

	"k8s.io/client-go/tools/cache"
)

// waitForSync blocks until every informer has synced or ctx ends, and
// says whether they all synced. Unlike cache.WaitForCacheSync it does not
// poll: the informers' sync checkers close a channel, so a post-start hook
// on the ready path returns the moment the last list is in, not up to
// 100 ms later.
func waitForSync(ctx context.Context, informers ...cache.SharedIndexInformer) bool {
	for _, inf := range informers {
		select {
		case <-inf.HasSyncedChecker().Done():
		case <-ctx.Done():
			return false
		}
	}
	return true
}
