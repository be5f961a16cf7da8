package handlers

import (
	"context"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// DeleteResource serves DELETE of one object, with DeleteOptions from the
// body or the query. It answers what storage returns (the object, or a
// Success Status), 200, or 202 when the object is not gone yet and the
// client asked for dependents to be deleted first (orphanDependents=false),
// exactly as upstream, whose clients rely on these codes.
func DeleteResource(r rest.GracefulDeleter, scope *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		t, err := scope.resolve(req, true)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		ctx, cancel := context.WithTimeout(t.ctx, requestTimeoutUpperBound)
		defer cancel()
		namespace, name := t.namespace, t.name
		opts, err := scope.deleteOptions(req)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		ctx = withRequestOptions(ctx, opts)
		result, deleted, err := r.Delete(ctx, name, scope.validateDelete(namespace, name, dryRun(opts.DryRun)), opts)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		status := http.StatusOK
		//nolint:staticcheck // OrphanDependents is deprecated but still decides the code upstream.
		if !deleted && opts.OrphanDependents != nil && !*opts.OrphanDependents {
			status = http.StatusAccepted
		}
		if result == nil {
			result = &metav1.Status{
				Status:  metav1.StatusSuccess,
				Code:    int32(status),
				Details: &metav1.StatusDetails{Name: name, Kind: scope.Kind.Kind},
			}
		}
		scope.writeResponse(ctx, w, req, status, t.mediaType, result)
	}
}
