// Package handlers holds one HTTP handler per Kubernetes verb (get, list,
// watch, create, update, patch, delete, deletecollection) over the REST
// storage interfaces of internal/registry/rest. A handler decodes the
// request (body, query options), records managed fields, runs admission,
// calls storage and writes the result or a Status error in the negotiated
// media type. PATCH also serves server-side apply through the endpoint's
// field manager.
package handlers

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// DefaultMaxRequestBodyBytes is upstream's default body limit (3 MiB).
const DefaultMaxRequestBodyBytes = 3 * 1024 * 1024

// requestTimeoutUpperBound caps how long a write may take, as upstream.
const requestTimeoutUpperBound = 34 * time.Second

// RequestScope is what every handler of one resource (or subresource)
// shares: how to encode and decode it, what it is, and its admission.
type RequestScope struct {
	// Serializer encodes and decodes the resource's objects.
	Serializer runtime.NegotiatedSerializer
	// ParameterCodec decodes query parameters into the meta.k8s.io
	// options (GetOptions, ListOptions, ...).
	ParameterCodec runtime.ParameterCodec
	Creater        runtime.ObjectCreater
	// Convertor converts field selector labels and objects between versions.
	Convertor runtime.ObjectConvertor
	Defaulter runtime.ObjectDefaulter
	Typer     runtime.ObjectTyper
	// TableConvertor renders as=Table; nil means Table is not acceptable.
	TableConvertor rest.TableConvertor

	Resource    schema.GroupVersionResource
	Subresource string
	// Kind is what the endpoint serves; bodies must be of its group version.
	Kind            schema.GroupVersionKind
	NamespaceScoped bool

	// Admission runs on writes; nil admits everything.
	Admission admission.Interface
	// FieldManager records metadata.managedFields on every write and
	// serves server-side apply; nil tracks nothing and refuses apply.
	// Built once per endpoint, shared by its requests.
	FieldManager        *managedfields.FieldManager
	MaxRequestBodyBytes int64
	// MinRequestTimeout bounds watches that ask for no timeout: they last
	// a random time in [min, 2*min).
	MinRequestTimeout time.Duration
	Logger            *slog.Logger
}

// metaSerializer encodes Table, PartialObjectMetadata(List) (v1 and
// v1beta1) and decodes DeleteOptions, as upstream: the meta scheme
// knows every meta.k8s.io version whatever the resource's scheme holds.
func metaSerializer() runtime.NegotiatedSerializer { return metaCodecs }

// metaCodecs streams PartialObjectMetadataList item by item, as the
// resources' codecs do their lists.
var metaCodecs = responsewriters.NewCodecFactory(metainternalversionscheme.Scheme)

// tableMetaCodecs streams Tables row by row too.
var tableMetaCodecs = newTableCodecs(metaCodecs)

// AllowsMediaTypeTransform: Table only in JSON and YAML and only where the
// storage can render it (upstream has no protobuf Table); partial object
// metadata in every format.
func (s *RequestScope) AllowsMediaTypeTransform(mimeType, mimeSubType string, target *schema.GroupVersionKind) bool {
	if target == nil {
		return true
	}
	if target.GroupVersion() != metav1.SchemeGroupVersion && target.GroupVersion() != metav1beta1.SchemeGroupVersion {
		return false
	}
	switch target.Kind {
	case "Table":
		return s.TableConvertor != nil && mimeType == "application" && (mimeSubType == "json" || mimeSubType == "yaml")
	case "PartialObjectMetadata", "PartialObjectMetadataList":
		return true
	default:
		return false
	}
}

// AllowsStreamSchema allows the watch stream only.
func (s *RequestScope) AllowsStreamSchema(schema string) bool { return schema == "watch" }

var _ negotiation.EndpointRestrictions = (*RequestScope)(nil)

// err writes err as a Status; errors without one are logged, as they mean
// some layer failed to translate its error.
func (s *RequestScope) err(err error, w http.ResponseWriter, req *http.Request) {
	if !responsewriters.IsAPIStatus(err) {
		s.logger().ErrorContext(req.Context(), "request failed with an untyped error",
			"method", req.Method, "path", req.URL.Path, "err", err)
	}
	responsewriters.ErrorNegotiated(err, s.Serializer, s.Kind.GroupVersion(), w, req)
}

func (s *RequestScope) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

var errEmptyName = apierrors.NewBadRequest("name must be provided")

// namespace is the request namespace; cluster-scoped resources have none
// whatever the path said (/api/v1/namespaces/x names the namespace x).
func (s *RequestScope) namespace(req *http.Request) (string, error) {
	info, ok := request.RequestInfoFrom(req.Context())
	if !ok {
		return "", apierrors.NewInternalError(fmt.Errorf("no RequestInfo found in the context"))
	}
	if !s.NamespaceScoped {
		return "", nil
	}
	return info.Namespace, nil
}

// name is the namespace and name a single-object request addresses.
func (s *RequestScope) name(req *http.Request) (namespace, name string, err error) {
	namespace, err = s.namespace(req)
	if err != nil {
		return "", "", err
	}
	info, _ := request.RequestInfoFrom(req.Context())
	if info.Name == "" {
		return "", "", errEmptyName
	}
	return namespace, info.Name, nil
}

// withNamespace puts the resolved namespace in the context for storage.
func withNamespace(ctx context.Context, namespace string) context.Context {
	return request.WithNamespace(ctx, namespace)
}

// target is what every handler first learns about its request: the
// namespace (in ctx too, for storage), the name when the request names
// an object, and the negotiated response media type.
type target struct {
	ctx       context.Context
	namespace string
	name      string
	mediaType negotiation.MediaTypeOptions
}

// resolve computes the target of req; named requests must carry a name.
func (s *RequestScope) resolve(req *http.Request, named bool) (target, error) {
	var t target
	var err error
	if named {
		t.namespace, t.name, err = s.name(req)
	} else {
		t.namespace, err = s.namespace(req)
	}
	if err != nil {
		return t, err
	}
	t.ctx = withNamespace(req.Context(), t.namespace)
	t.mediaType, _, err = negotiation.NegotiateOutputMediaType(req, s.Serializer, s)
	return t, err
}
