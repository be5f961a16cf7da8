package controlplane

import (
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"

	"github.com/kapi-dev/kapi/internal/server/healthz"
)

// syncCheck is kube-apiserver's readyz check "informer-sync": every
// informer started in the shared factory has synced. Until then, the
// admission plugins and controllers reading it see a partial cluster.
// Once it has passed it keeps passing, as upstream's does (an informer
// never loses its sync): the in-process controllers share the factory
// and start informers of their own when they win the leader election,
// which may come after the server is ready, and their first lists must
// not make a ready server unready (kube-controller-manager's informers
// do not gate kube-apiserver's readiness either).
func (si *sharedInformers) syncCheck() healthz.Check {
	var passed atomic.Bool
	return healthz.NamedCheck("informer-sync", func(*http.Request) error {
		if passed.Load() {
			return nil
		}
		now := make(chan struct{})
		close(now) // ask, do not wait
		var notSynced []string
		for typ, synced := range si.factory.WaitForCacheSync(now) {
			if !synced {
				notSynced = append(notSynced, typ.String())
			}
		}
		if len(notSynced) > 0 {
			slices.Sort(notSynced)
			return fmt.Errorf("%d informers not started yet: %v", len(notSynced), notSynced)
		}
		passed.Store(true)
		return nil
	})
}
