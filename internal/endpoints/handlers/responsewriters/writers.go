// Package responsewriters writes API objects and errors to HTTP responses
// in the media type the client negotiated, with the status code and
// Content-Type kube-apiserver uses.
package responsewriters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
)

// gzipThresholdBytes: smaller bodies are not worth compressing (upstream's
// threshold).
const gzipThresholdBytes = 128 * 1024

// WriteObjectNegotiated encodes object for version gv in the media type
// the client accepts. When nothing is acceptable it answers 406 in JSON,
// unless statusCode is already an error, which it keeps so the original
// error is not hidden behind the negotiation failure.
// listGVKInContentType appends ;g=;v=;as= of the conversion target to the
// Content-Type, as aggregated discovery does.
func WriteObjectNegotiated(s runtime.NegotiatedSerializer, r negotiation.EndpointRestrictions, gv runtime.GroupVersioner, w http.ResponseWriter, req *http.Request, statusCode int, object runtime.Object, listGVKInContentType bool) {
	mediaType, info, err := negotiation.NegotiateOutputMediaType(req, s, r)
	if err != nil {
		if statusCode < http.StatusOK || statusCode >= http.StatusBadRequest {
			WriteRawJSON(statusCode, object, w)
			return
		}
		status := ErrorToAPIStatus(err)
		WriteRawJSON(int(status.Code), status, w)
		return
	}
	contentType := info.MediaType
	if listGVKInContentType {
		contentType = mediaTypeWithGVK(contentType, mediaType.Convert)
	}
	SerializeObject(contentType, s.EncoderForVersion(info.Serializer, gv), w, req, statusCode, object)
}

func mediaTypeWithGVK(mediaType string, gvk *schema.GroupVersionKind) string {
	if gvk == nil {
		return mediaType
	}
	if gvk.Group != "" {
		mediaType += ";g=" + gvk.Group
	}
	if gvk.Version != "" {
		mediaType += ";v=" + gvk.Version
	}
	if gvk.Kind != "" {
		mediaType += ";as=" + gvk.Kind
	}
	return mediaType
}

// SerializeObject encodes object with encoder and writes it with
// statusCode, streaming it to the client as it is encoded (lists are
// encoded item by item by the streaming codecs of NewCodecFactory). The
// first gzipThresholdBytes are held back: an encoding failure within them
// still becomes a proper Status response, and only bodies larger than the
// threshold are gzipped when the client accepts it. A failure after the
// response started can no longer be reported: the response is aborted so
// the client sees it incomplete rather than a truncated body that looks
// whole.
func SerializeObject(mediaType string, encoder runtime.Encoder, w http.ResponseWriter, req *http.Request, statusCode int, object runtime.Object) {
	dw := newDeferredWriter(w, req, mediaType, statusCode)
	// The protobuf encoder encodes item by item into one reused buffer.
	if ea, ok := encoder.(runtime.EncoderWithAllocator); ok {
		alloc := runtime.AllocatorPool.Get().(*runtime.Allocator)
		defer runtime.AllocatorPool.Put(alloc)
		encoder = runtime.NewEncoderWithAllocator(ea, alloc)
	}
	err := encoder.Encode(object, dw)
	if err == nil {
		_ = dw.Close() // the client went away; nothing left to tell it
		return
	}
	if dw.started {
		_ = dw.Close()
		if dw.writeErr != nil {
			return // the client went away mid-body
		}
		panic(http.ErrAbortHandler)
	}
	dw.discard()
	status := ErrorToAPIStatus(fmt.Errorf("unable to encode a %s response: %w", mediaType, err))
	if statusCode >= http.StatusOK && statusCode < http.StatusBadRequest {
		statusCode = int(status.Code)
	}
	var buf bytes.Buffer
	if err := encoder.Encode(status, &buf); err != nil {
		mediaType = "text/plain"
		buf.Reset()
		fmt.Fprintf(&buf, "%s: %s", status.Reason, status.Message)
	}
	writeBody(w, req, mediaType, statusCode, buf.Bytes())
}

func writeBody(w http.ResponseWriter, req *http.Request, mediaType string, statusCode int, body []byte) {
	dw := newDeferredWriter(w, req, mediaType, statusCode)
	dw.start(len(body) > gzipThresholdBytes)
	_, _ = dw.send(body)
	_ = dw.Close() // the client went away; nothing left to tell it
}

// acceptsGzip reports whether Accept-Encoding lists gzip.
func acceptsGzip(req *http.Request) bool {
	for _, v := range req.Header.Values("Accept-Encoding") {
		for token := range strings.SplitSeq(v, ",") {
			name, _, _ := strings.Cut(token, ";")
			if strings.EqualFold(strings.TrimSpace(name), "gzip") {
				return true
			}
		}
	}
	return false
}

// ErrorNegotiated writes err as a Status in the negotiated media type and
// returns the HTTP status code written.
func ErrorNegotiated(err error, s runtime.NegotiatedSerializer, gv schema.GroupVersion, w http.ResponseWriter, req *http.Request) int {
	status := ErrorToAPIStatus(err)
	code := int(status.Code)
	if status.Details != nil && status.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(status.Details.RetryAfterSeconds)))
	}
	if code == http.StatusNoContent {
		w.WriteHeader(code)
		return code
	}
	WriteObjectNegotiated(s, negotiation.NoTransform{}, gv, w, req, code, status, false)
	return code
}

// WriteRawJSON writes a value that needs no API machinery, indented, as
// upstream does for its fallbacks.
func WriteRawJSON(statusCode int, object any, w http.ResponseWriter) {
	out, err := json.MarshalIndent(object, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(statusCode)
	_, _ = w.Write(out)
}
