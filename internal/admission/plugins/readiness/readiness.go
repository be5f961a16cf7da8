// Package readiness lets admission plugins that read informer caches wait
// for them, as upstream's admission handlers do: up to ten seconds, then
// a 403 "not yet ready to handle request".
package readiness

import (
	"context"
	"errors"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/forbidden"
)

// Timeout is how long a request waits for the caches.
const Timeout = 10 * time.Second

// Wait returns nil once every synced func is true (nil funcs are ready),
// or upstream's Forbidden error when they are not within Timeout or ctx
// ends first.
func Wait(ctx context.Context, a *admission.Attributes, synced ...cache.InformerSynced) error {
	ready := true
	for _, s := range synced {
		if s != nil && !s() {
			ready = false
		}
	}
	if ready {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var waitFor []cache.InformerSynced
	for _, s := range synced {
		if s != nil {
			waitFor = append(waitFor, s)
		}
	}
	if cache.WaitForCacheSync(wctx.Done(), waitFor...) {
		return nil
	}
	return forbidden.New(a, errors.New("not yet ready to handle request"))
}
