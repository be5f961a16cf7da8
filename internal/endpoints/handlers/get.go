package handlers

import (
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// GetResource serves GET of one object.
func GetResource(r rest.Getter, scope *RequestScope) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		t, err := scope.resolve(req, true)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		if err := rejectExport(req); err != nil {
			scope.err(err, w, req)
			return
		}
		opts, err := scope.getOptions(req)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		result, err := r.Get(t.ctx, t.name, opts)
		if err != nil {
			scope.err(err, w, req)
			return
		}
		scope.writeResponse(t.ctx, w, req, http.StatusOK, t.mediaType, result)
	}
}

// rejectExport refuses ?export=true, removed upstream in 1.18 with this
// message.
func rejectExport(req *http.Request) error {
	values, ok := req.URL.Query()["export"]
	if !ok {
		return nil
	}
	export := true
	if len(values) > 0 && values[0] != "" {
		b, err := strconv.ParseBool(values[0])
		if err != nil {
			return apierrors.NewBadRequest(fmt.Sprintf("the export parameter cannot be parsed: %v", err))
		}
		export = b
	}
	if export {
		return apierrors.NewBadRequest("the export parameter, deprecated since v1.14, is no longer supported")
	}
	return nil
}
