package endpoints

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/endpoints/discovery"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// groupVersionHandler dispatches the requests of one group version.
type groupVersionHandler struct {
	prefix    string
	gv        schema.GroupVersion
	codecs    serializer.CodecFactory
	resources map[string]*resourceHandlers
	discovery *discovery.APIVersionHandler
	logger    *slog.Logger
}

// ServeHTTP routes by the RequestInfo: the prefix itself is the
// APIResourceList; a resource request goes to the handler of its verb.
// Unknown resources and paths get the 404 kube-apiserver gives for an
// unknown path, unsupported verbs its 405.
func (h *groupVersionHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	info, ok := request.RequestInfoFrom(req.Context())
	if !ok {
		h.error(w, req, apierrors.NewInternalError(fmt.Errorf("no RequestInfo found in the context")))
		return
	}
	if !info.IsResourceRequest {
		h.serveNonResource(w, req)
		return
	}
	key := info.Resource
	if info.Subresource != "" {
		key += "/" + info.Subresource
	}
	rh, ok := h.resources[key]
	if !ok {
		h.error(w, req, genericError(http.StatusNotFound))
		return
	}
	if code := rh.routeError(info); code != 0 {
		h.error(w, req, genericError(code))
		return
	}
	handler, ok := rh.verbs[info.Verb]
	if !ok {
		h.error(w, req, genericError(http.StatusMethodNotAllowed))
		return
	}
	// Only installed routes count in apiserver_request_total.
	request.MarkRouted(req.Context())
	handler.ServeHTTP(w, req)
}

// serveNonResource answers the group version's own path.
func (h *groupVersionHandler) serveNonResource(w http.ResponseWriter, req *http.Request) {
	if strings.TrimSuffix(req.URL.Path, "/") != h.prefix {
		h.error(w, req, genericError(http.StatusNotFound))
		return
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		h.error(w, req, genericError(http.StatusMethodNotAllowed))
		return
	}
	h.discovery.ServeHTTP(w, req)
}

// routeError mirrors upstream's routes: a namespaced resource's objects
// live only under namespaces/<ns>/ (404 elsewhere), and it is created or
// deleted in bulk only there (405 on the all-namespaces path, which serves
// only list and watch). Cluster-scoped resources have no namespaced paths;
// "namespaces" itself is the exception, its name being the namespace.
func (rh *resourceHandlers) routeError(info *request.RequestInfo) int {
	// Collections take GET, POST and DELETE; objects GET, PUT, PATCH and
	// DELETE. Any other method on either path has no route upstream.
	switch {
	case info.Name == "" && (info.Verb == "update" || info.Verb == "patch"):
		return http.StatusMethodNotAllowed
	case info.Name != "" && info.Subresource == "" && info.Verb == "create":
		return http.StatusMethodNotAllowed
	}
	if !rh.namespaced {
		if info.Namespace != "" && !(info.APIGroup == "" && info.Resource == "namespaces") {
			return http.StatusNotFound
		}
		return 0
	}
	if info.Namespace != "" {
		return 0
	}
	switch info.Verb {
	case "get", "update", "patch", "delete":
		return http.StatusNotFound
	case "create", "deletecollection":
		return http.StatusMethodNotAllowed
	}
	return 0
}

func (h *groupVersionHandler) error(w http.ResponseWriter, req *http.Request, err error) {
	if !responsewriters.IsAPIStatus(err) {
		h.logger.ErrorContext(req.Context(), "request failed", "path", req.URL.Path, "err", err)
	}
	responsewriters.ErrorNegotiated(err, h.codecs, h.gv, w, req)
}

// genericError is the Status kube-apiserver's router answers with
// ("the server could not find the requested resource", ...).
func genericError(code int) error {
	return apierrors.NewGenericServerResponse(code, "", schema.GroupResource{}, "", "", 0, false)
}
