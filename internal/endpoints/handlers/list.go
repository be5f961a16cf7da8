package handlers

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/registry/rest"
	"github.com/kapi-dev/kapi/internal/storage"
)

// ListResource serves GET of a collection, and its watch when the query
// says watch=true or forceWatch is set (the watch verb). rw may be nil
// when the storage cannot watch.
func ListResource(r rest.Lister, rw rest.Watcher, scope *RequestScope, forceWatch bool) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		t, err := scope.resolve(req, false)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		ctx := t.ctx
		req = req.WithContext(ctx)
		opts, err := scope.listOptions(req, forceWatch)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		if opts.Watch {
			if rw == nil {
				scope.err(apierrors.NewMethodNotSupported(scope.Resource.GroupResource(), "watch"), w, req)
				return
			}
			if err := serveWatch(ctx, rw, scope, req, w, opts, t.mediaType); err != nil {
				scope.err(err, w, req)
			}
			return
		}
		if r == nil {
			scope.err(apierrors.NewMethodNotSupported(scope.Resource.GroupResource(), "list"), w, req)
			return
		}
		if wantsCachedItems(t.mediaType) {
			// A list from the watch cache then says which cached objects
			// filled it, and their earlier encodings are reused.
			ctx, _ = storage.WithListSources(ctx)
		}
		result, err := r.List(ctx, opts)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		scope.writeResponse(ctx, w, req, http.StatusOK, t.mediaType, result)
	}
}
