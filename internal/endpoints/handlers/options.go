package handlers

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionvalidation "k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// watchListEnabled mirrors upstream's WatchList feature, on by default
// since 1.34: a watch from resourceVersion "" or "0" gets its initial
// events (sendInitialEvents) unless the client said otherwise.
const watchListEnabled = true

// decodeQuery decodes the query into a meta.k8s.io/v1 options object;
// any failure is the client's (400).
func (s *RequestScope) decodeQuery(req *http.Request, into runtime.Object) error {
	if err := s.ParameterCodec.DecodeParameters(req.URL.Query(), metav1.SchemeGroupVersion, into); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	return nil
}

// invalidOptions is the 422 upstream gives for bad option values, e.g.
// `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value`.
func invalidOptions(kind string, errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
}

func (s *RequestScope) getOptions(req *http.Request) (*metav1.GetOptions, error) {
	opts := &metav1.GetOptions{}
	if len(req.URL.Query()) == 0 {
		return opts, nil
	}
	return opts, s.decodeQuery(req, opts)
}

func (s *RequestScope) createOptions(req *http.Request) (*metav1.CreateOptions, error) {
	opts := &metav1.CreateOptions{}
	if err := s.decodeQuery(req, opts); err != nil {
		return nil, err
	}
	if errs := metav1validation.ValidateCreateOptions(opts); len(errs) > 0 {
		return nil, invalidOptions("CreateOptions", errs)
	}
	opts.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("CreateOptions"))
	return opts, nil
}

func (s *RequestScope) updateOptions(req *http.Request) (*metav1.UpdateOptions, error) {
	opts := &metav1.UpdateOptions{}
	if err := s.decodeQuery(req, opts); err != nil {
		return nil, err
	}
	if errs := metav1validation.ValidateUpdateOptions(opts); len(errs) > 0 {
		return nil, invalidOptions("UpdateOptions", errs)
	}
	opts.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("UpdateOptions"))
	return opts, nil
}

func (s *RequestScope) patchOptions(req *http.Request, patchType types.PatchType) (*metav1.PatchOptions, error) {
	opts := &metav1.PatchOptions{}
	if err := s.decodeQuery(req, opts); err != nil {
		return nil, err
	}
	if errs := metav1validation.ValidatePatchOptions(opts, patchType); len(errs) > 0 {
		return nil, invalidOptions("PatchOptions", errs)
	}
	opts.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PatchOptions"))
	return opts, nil
}

// listOptions decodes, defaults and validates list and watch options, maps
// field selector labels to the resource's internal ones, and narrows the
// request to one object when the path names it. forceWatch is the watch
// verb of /watch/ paths, which carry no watch=true.
func (s *RequestScope) listOptions(req *http.Request, forceWatch bool) (*metainternalversion.ListOptions, error) {
	opts := &metainternalversion.ListOptions{}
	if err := s.decodeQuery(req, opts); err != nil {
		return nil, err
	}
	opts.Watch = opts.Watch || forceWatch
	if err := CompleteListOptions(opts, s.Kind, s.Convertor); err != nil {
		return nil, err
	}
	info, _ := request.RequestInfoFrom(req.Context())
	if info != nil && info.Name != "" {
		if err := narrowToName(opts, info.Name); err != nil {
			return nil, err
		}
	}
	return opts, nil
}

// CompleteListOptions is what every list and watch of kind goes through
// once its options are decoded, over HTTP or in-process: upstream's
// defaults (watch-list), validation, and the field selector's labels
// checked and mapped for the kind.
func CompleteListOptions(opts *metainternalversion.ListOptions, kind schema.GroupVersionKind, convertor runtime.ObjectConvertor) error {
	metainternalversion.SetListOptionsDefaults(opts, watchListEnabled)
	if errs := metainternalversionvalidation.ValidateListOptions(opts, watchListEnabled); len(errs) > 0 {
		return invalidOptions("ListOptions", errs)
	}
	return convertFieldSelector(opts, kind, convertor)
}

// convertFieldSelector rejects labels the kind does not support
// ("field label not supported: x") and maps the others.
func convertFieldSelector(opts *metainternalversion.ListOptions, kind schema.GroupVersionKind, convertor runtime.ObjectConvertor) error {
	if opts.FieldSelector == nil {
		return nil
	}
	sel, err := opts.FieldSelector.Transform(func(label, value string) (string, string, error) {
		return convertor.ConvertFieldLabel(kind, label, value)
	})
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	opts.FieldSelector = sel
	return nil
}

// narrowToName turns a request for one named object (watch of
// .../configmaps/foo) into a metadata.name field selector, refusing one
// that selects another name.
func narrowToName(opts *metainternalversion.ListOptions, name string) error {
	if opts.FieldSelector == nil || opts.FieldSelector.Empty() {
		opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", name)
		return nil
	}
	if selected, ok := opts.FieldSelector.RequiresExactMatch("metadata.name"); !ok || selected != name {
		return apierrors.NewBadRequest("fieldSelector metadata.name doesn't match requested name")
	}
	return nil
}

// deleteOptions reads DeleteOptions from the body when there is one (any
// version of DeleteOptions, as old clients send v1 or group versions),
// from the query otherwise.
func (s *RequestScope) deleteOptions(req *http.Request) (*metav1.DeleteOptions, error) {
	body, err := limitedReadBody(req, s.MaxRequestBodyBytes)
	if err != nil {
		return nil, err
	}
	opts := &metav1.DeleteOptions{}
	if len(body) > 0 {
		if err := decodeDeleteOptions(req, body, opts); err != nil {
			return nil, err
		}
	} else if err := s.decodeQuery(req, opts); err != nil {
		return nil, err
	}
	// Not served: deleting corrupt objects needs an extra authorization
	// check kapi does not have yet.
	opts.IgnoreStoreReadErrorWithClusterBreakingPotential = nil
	if errs := metav1validation.ValidateDeleteOptions(opts); len(errs) > 0 {
		return nil, invalidOptions("DeleteOptions", errs)
	}
	opts.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("DeleteOptions"))
	return opts, nil
}

func decodeDeleteOptions(req *http.Request, body []byte, opts *metav1.DeleteOptions) error {
	codecs := metaSerializer()
	info, err := negotiation.NegotiateInputSerializer(req, false, codecs)
	if err != nil {
		return err
	}
	defaultGVK := metav1.SchemeGroupVersion.WithKind("DeleteOptions")
	obj, _, err := codecs.DecoderToVersion(info.Serializer, metav1.SchemeGroupVersion).Decode(body, &defaultGVK, opts)
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	if obj != opts {
		return apierrors.NewBadRequest("decoded object cannot be converted to DeleteOptions")
	}
	return nil
}

// dryRun reports whether the options ask for a dry run (validated to be
// "All" before).
func dryRun(values []string) bool { return len(values) > 0 }
