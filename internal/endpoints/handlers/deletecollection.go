package handlers

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// DeleteCollection serves DELETE of a collection: the list options select
// what goes, the DeleteOptions (body or query) say how. No 34s cap: it may
// take as long as a list.
func DeleteCollection(r rest.CollectionDeleter, scope *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		t, err := scope.resolve(req, false)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		req = req.WithContext(t.ctx)
		listOpts, err := scope.listOptions(req, false)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		opts, err := scope.deleteOptions(req)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		result, err := r.DeleteCollection(withRequestOptions(t.ctx, opts), scope.validateDelete(t.namespace, "", dryRun(opts.DryRun)), opts, listOpts)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		if result == nil {
			result = &metav1.Status{
				Status:  metav1.StatusSuccess,
				Code:    http.StatusOK,
				Details: &metav1.StatusDetails{Kind: scope.Kind.Kind},
			}
		}
		scope.writeResponse(t.ctx, w, req, http.StatusOK, t.mediaType, result)
	}
}
