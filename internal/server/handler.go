package server

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/kapi-dev/kapi/internal/server/mux"
)

// APIServerHandler holds a server's routing: the API mux for /api and /apis
// paths, the non-API mux for everything else, the Director choosing between
// them, and the full filter chain around the Director.
type APIServerHandler struct {
	// FullHandlerChain is the Director wrapped in filters; the outermost
	// server serves it.
	FullHandlerChain http.Handler
	// Director routes without filters; it is the server's
	// UnprotectedHandler.
	Director  http.Handler
	APIMux    *mux.PathRecorderMux
	NonAPIMux *mux.PathRecorderMux
}

// newAPIServerHandler wires the muxes so that what neither claims goes to
// notFound, the next server in the chain.
func newAPIServerHandler(name string, logger *slog.Logger, notFound http.Handler, chain func(http.Handler) http.Handler) *APIServerHandler {
	apiMux := mux.NewPathRecorderMux(name+"-api", logger)
	nonAPIMux := mux.NewPathRecorderMux(name+"-nonapi", logger)
	nonAPIMux.NotFoundHandler(notFound)
	director := &director{api: apiMux, nonAPI: nonAPIMux}
	return &APIServerHandler{
		FullHandlerChain: chain(director),
		Director:         director,
		APIMux:           apiMux,
		NonAPIMux:        nonAPIMux,
	}
}

// ServeHTTP serves the full chain.
func (h *APIServerHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.FullHandlerChain.ServeHTTP(w, r)
}

// ListedPaths returns the paths both muxes list.
func (h *APIServerHandler) ListedPaths() []string {
	return append(h.APIMux.ListedPaths(), h.NonAPIMux.ListedPaths()...)
}

// director sends API paths the API mux has a route for to it, and
// everything else to the non-API mux (whose not-found handler delegates).
// Discovery documents for /api and /apis may live in either mux.
type director struct {
	api    *mux.PathRecorderMux
	nonAPI *mux.PathRecorderMux
}

func (d *director) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if isAPIPath(path) {
		if h, ok := d.api.Handler(path); ok {
			h.ServeHTTP(w, r)
			return
		}
	}
	d.nonAPI.ServeHTTP(w, r)
}

// isAPIPath reports whether path is /api or /apis or below them; /apiserver
// is not.
func isAPIPath(path string) bool {
	for _, root := range []string{"/api", "/apis"} {
		if path == root || strings.HasPrefix(path, root+"/") {
			return true
		}
	}
	return false
}
