package handlers

import (
	"context"
	"fmt"
	"sync/atomic"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// maxJSONPatchOperations bounds the work one JSON patch may ask for.
const maxJSONPatchOperations = 10000

// limitJSONPatchCopies bounds how many bytes the "copy" operations of one
// JSON patch may add to the document: without a bound a few kilobytes of
// patch that copy a subtree into itself double the document with each
// operation. The json-patch library has one process-wide limit; like
// kube-apiserver, every server lowers it to its own body limit and never
// raises it, so the smallest wins. It is set when a patch handler is
// built, before any patch is served, and only written when it changes.
func limitJSONPatchCopies(maxBytes int64) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxRequestBodyBytes
	}
	for {
		current := atomic.LoadInt64(&jsonpatch.AccumulatedCopySizeLimit)
		if current > 0 && current <= maxBytes {
			return
		}
		if atomic.CompareAndSwapInt64(&jsonpatch.AccumulatedCopySizeLimit, current, maxBytes) {
			return
		}
	}
}

// checkDeadline stops a patch whose request has run out of time: the
// client already has its 504, and the work would only hold memory.
func checkDeadline(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return apierrors.NewTimeoutError(fmt.Sprintf("request did not complete within requested timeout - %v", err), 0)
	}
	return nil
}
