package handlers

import (
	"net/http"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// ConnectResource serves a connect subresource (pods/{name}/exec, ...):
// the storage answers with a handler, or an error written as a Status.
func ConnectResource(c rest.Connecter, scope *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		t, err := scope.resolve(req, true)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		h, err := c.Connect(t.ctx, t.name, req)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		h.ServeHTTP(w, req)
	}
}
