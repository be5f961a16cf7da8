package controlplane

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/kapi-dev/kapi/internal/server/healthz"
)

// syncCheck is kube-apiserver's readyz check "informer-sync": every
// informer started in the shared factory has synced. Until then, the
// admission plugins and controllers reading it see a partial cluster.
func (si *sharedInformers) syncCheck() healthz.Check {
	return healthz.NamedCheck("informer-sync", func(*http.Request) error {
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
		return nil
	})
}
