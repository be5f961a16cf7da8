// Package negotiation picks the serializer of a request body (Content-Type)
// and of a response (Accept), including the Kubernetes media type
// parameters: as=Table, as=PartialObjectMetadata(List), g=, v=, stream=watch
// and pretty. It answers with the upstream 406 and 415 errors.
package negotiation

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// EndpointRestrictions lets an endpoint say which media type parameters it
// can honour; clauses it cannot are skipped during negotiation.
type EndpointRestrictions interface {
	// AllowsMediaTypeTransform reports whether the endpoint can answer in
	// mimeType/mimeSubType converted to target (nil: no conversion asked).
	AllowsMediaTypeTransform(mimeType, mimeSubType string, target *schema.GroupVersionKind) bool
	// AllowsStreamSchema reports whether stream=<schema> is served.
	AllowsStreamSchema(schema string) bool
}

// NoTransform is the restriction of endpoints that serve objects only as
// they are: any as=... clause is skipped, stream=watch is allowed.
type NoTransform struct{}

// AllowsMediaTypeTransform allows only requests without a conversion.
func (NoTransform) AllowsMediaTypeTransform(_, _ string, target *schema.GroupVersionKind) bool {
	return target == nil
}

// AllowsStreamSchema allows the watch stream.
func (NoTransform) AllowsStreamSchema(s string) bool { return s == "watch" }

// MediaTypeOptions is what the accepted clause of an Accept header asks.
type MediaTypeOptions struct {
	// Pretty asks for indented output (pretty=1 parameter).
	Pretty bool
	// Stream is the streaming schema ("watch") or empty.
	Stream string
	// Convert is the as=/g=/v= conversion target, nil when none.
	Convert *schema.GroupVersionKind
	// Profile is the discovery profile parameter (e.g. "nopeer").
	Profile string
	// Unrecognized lists parameters nobody understood.
	Unrecognized []string
	// Accepted is the serializer chosen.
	Accepted runtime.SerializerInfo
}

// MediaTypesForSerializer lists the media types of ns and the stream media
// types (with ;stream=watch) of those that can stream.
func MediaTypesForSerializer(ns runtime.NegotiatedSerializer) (mediaTypes, streamMediaTypes []string) {
	for _, info := range ns.SupportedMediaTypes() {
		mediaTypes = append(mediaTypes, info.MediaType)
		if info.StreamSerializer != nil {
			streamMediaTypes = append(streamMediaTypes, info.MediaType+";stream=watch")
		}
	}
	return mediaTypes, streamMediaTypes
}

// NegotiateOutputMediaType picks the response serializer for req, using the
// pretty serializer when asked for by ?pretty or a human user agent.
func NegotiateOutputMediaType(req *http.Request, ns runtime.NegotiatedSerializer, r EndpointRestrictions) (MediaTypeOptions, runtime.SerializerInfo, error) {
	mediaType, ok := NegotiateMediaTypeOptions(req.Header.Get("Accept"), ns.SupportedMediaTypes(), r)
	if !ok {
		supported, _ := MediaTypesForSerializer(ns)
		return mediaType, runtime.SerializerInfo{}, NewNotAcceptableError(supported)
	}
	info := mediaType.Accepted
	if (mediaType.Pretty || isPrettyPrint(req)) && info.PrettySerializer != nil {
		info.Serializer = info.PrettySerializer
	}
	return mediaType, info, nil
}

// NegotiateOutputMediaTypeStream picks the serializer of a watch stream.
func NegotiateOutputMediaTypeStream(req *http.Request, ns runtime.NegotiatedSerializer, r EndpointRestrictions) (runtime.SerializerInfo, error) {
	mediaType, ok := NegotiateMediaTypeOptions(req.Header.Get("Accept"), ns.SupportedMediaTypes(), r)
	if !ok || mediaType.Accepted.StreamSerializer == nil {
		_, supported := MediaTypesForSerializer(ns)
		return runtime.SerializerInfo{}, NewNotAcceptableError(supported)
	}
	return mediaType.Accepted, nil
}

// NegotiateInputSerializer picks the serializer of the request body from
// its Content-Type; an empty Content-Type means the first (JSON).
func NegotiateInputSerializer(req *http.Request, streaming bool, ns runtime.NegotiatedSerializer) (runtime.SerializerInfo, error) {
	return NegotiateInputSerializerForMediaType(req.Header.Get("Content-Type"), streaming, ns)
}

// NegotiateInputSerializerForMediaType is NegotiateInputSerializer for a
// media type already extracted.
func NegotiateInputSerializerForMediaType(mediaType string, streaming bool, ns runtime.NegotiatedSerializer) (runtime.SerializerInfo, error) {
	infos := ns.SupportedMediaTypes()
	if mediaType == "" {
		mediaType = infos[0].MediaType
	}
	if base, _, err := mime.ParseMediaType(mediaType); err == nil {
		if info, ok := runtime.SerializerInfoForMediaType(infos, base); ok {
			return info, nil
		}
	}
	supported, streamingSupported := MediaTypesForSerializer(ns)
	if streaming {
		return runtime.SerializerInfo{}, NewUnsupportedMediaTypeError(streamingSupported)
	}
	return runtime.SerializerInfo{}, NewUnsupportedMediaTypeError(supported)
}

// isPrettyPrint: ?pretty=<bool> wins; otherwise browsers and command line
// HTTP tools get indented output, as upstream does.
func isPrettyPrint(req *http.Request) bool {
	if req.URL != nil && strings.Contains(req.URL.RawQuery, "pretty") {
		if pp := req.URL.Query().Get("pretty"); pp != "" {
			pretty, _ := strconv.ParseBool(pp)
			return pretty
		}
	}
	ua := req.UserAgent()
	return strings.HasPrefix(ua, "curl") || strings.HasPrefix(ua, "Wget") || strings.HasPrefix(ua, "Mozilla/5.0")
}

// NegotiateMediaTypeOptions returns the first Accept clause, in preference
// order, that a serializer of accepted matches and r allows. An empty
// header accepts the first serializer.
func NegotiateMediaTypeOptions(header string, accepted []runtime.SerializerInfo, r EndpointRestrictions) (MediaTypeOptions, bool) {
	if header == "" && len(accepted) > 0 {
		return MediaTypeOptions{Accepted: accepted[0]}, true
	}
	for _, clause := range parseAccept(header) {
		for i := range accepted {
			info := &accepted[i]
			if !clauseMatches(clause, info) {
				continue
			}
			if opts, ok := acceptMediaTypeOptions(clause.Params, info, r); ok {
				return opts, true
			}
		}
	}
	return MediaTypeOptions{}, false
}

func clauseMatches(c acceptClause, info *runtime.SerializerInfo) bool {
	switch {
	case c.Type == "*" && c.SubType == "*":
		return true
	case c.Type != info.MediaTypeType:
		return false
	default:
		return c.SubType == "*" || c.SubType == info.MediaTypeSubType
	}
}

// acceptMediaTypeOptions reads the parameters of a clause; false means the
// endpoint cannot serve them and the clause must be skipped.
func acceptMediaTypeOptions(params map[string]string, info *runtime.SerializerInfo, r EndpointRestrictions) (MediaTypeOptions, bool) {
	var opts MediaTypeOptions
	convert := func() *schema.GroupVersionKind {
		if opts.Convert == nil {
			opts.Convert = &schema.GroupVersionKind{}
		}
		return opts.Convert
	}
	for k, v := range params {
		switch k {
		case "as":
			convert().Kind = v
		case "g":
			convert().Group = v
		case "v":
			convert().Version = v
		case "stream":
			if v != "" && (info.StreamSerializer == nil || !r.AllowsStreamSchema(v)) {
				return MediaTypeOptions{}, false
			}
			opts.Stream = v
		case "pretty":
			opts.Pretty = v == "1"
		case "profile":
			opts.Profile = v
		default:
			opts.Unrecognized = append(opts.Unrecognized, k)
		}
	}
	if !r.AllowsMediaTypeTransform(info.MediaTypeType, info.MediaTypeSubType, opts.Convert) {
		return MediaTypeOptions{}, false
	}
	opts.Accepted = *info
	return opts, true
}
