package discovery

import (
	"net/http"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
)

// APIVersionHandler serves the APIResourceList of one group version
// (/api/v1, /apis/<group>/<version>).
type APIVersionHandler struct {
	serializer   runtime.NegotiatedSerializer
	groupVersion string
	resources    []metav1.APIResource
}

// NewAPIVersionHandler serves resources of gv. serializer must know the
// meta.k8s.io unversioned types (metav1.AddToGroupVersion does that);
// typer finds their kinds for the core group's version-less documents.
func NewAPIVersionHandler(serializer runtime.NegotiatedSerializer, typer runtime.ObjectTyper, gv schema.GroupVersion, resources []metav1.APIResource) *APIVersionHandler {
	if gv.Group == "" {
		serializer = kindOnlySerializer{NegotiatedSerializer: serializer, typer: typer}
	}
	return &APIVersionHandler{serializer: serializer, groupVersion: gv.String(), resources: slices.Clone(resources)}
}

// ServeHTTP writes the APIResourceList. The list is built per request
// because encoding sets its kind in place.
func (h *APIVersionHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	list := &metav1.APIResourceList{GroupVersion: h.groupVersion, APIResources: h.resources}
	responsewriters.WriteObjectNegotiated(h.serializer, negotiation.NoTransform{}, schema.GroupVersion{}, w, req, http.StatusOK, list, false)
}
