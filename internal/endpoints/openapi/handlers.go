package openapi

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/munnerz/goautoneg"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/server/filters"
)

// Install serves /openapi/v2, /openapi/v3 and /openapi/v3/<path> on mux.
func (s *Service) Install(mux Mux) {
	mux.Handle("/openapi/v2", http.HandlerFunc(s.serveV2))
	mux.Handle("/openapi/v3", http.HandlerFunc(s.serveV3Index))
	mux.HandlePrefix("/openapi/v3/", http.HandlerFunc(s.serveV3))
}

// representation is one form a document is served in.
type representation struct {
	typ, subtype string
	contentType  string
	protobuf     bool
}

// The forms of each document, in upstream's order of preference for a
// wildcard Accept. Both spellings of the protobuf type are accepted and
// answered with the same one, as upstream.
var (
	v2Representations = [...]representation{
		{"application", "json", "application/json", false},
		{"application", "com.github.proto-openapi.spec.v2@v1.0+protobuf", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", true},
		{"application", "com.github.proto-openapi.spec.v2.v1.0+protobuf", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", true},
	}
	v3Representations = [...]representation{
		{"application", "json", "application/json", false},
		{"application", "com.github.proto-openapi.spec.v3.v1.0+protobuf", "application/com.github.proto-openapi.spec.v3.v1.0+protobuf", true},
		{"application", "com.github.proto-openapi.spec.v3@v1.0+protobuf", "application/com.github.proto-openapi.spec.v3.v1.0+protobuf", true},
	}
)

// negotiate picks the form the Accept header prefers; no header means
// anything.
func negotiate(accept string, offers []representation) (representation, bool) {
	if accept == "" {
		accept = "*/*"
	}
	for _, c := range goautoneg.ParseAccept(accept) {
		if c.Q <= 0 {
			continue
		}
		for _, o := range offers {
			if (c.Type == o.typ || c.Type == "*") && (c.SubType == o.subtype || c.SubType == "*") {
				return o, true
			}
		}
	}
	return representation{}, false
}

// serveV2 serves the v2 document, gzipped when the client accepts it, as
// upstream wraps it in a gzip handler.
func (s *Service) serveV2(w http.ResponseWriter, r *http.Request) {
	if !readOnly(w, r) {
		return
	}
	w.Header().Add("Vary", "Accept")
	rep, ok := negotiate(r.Header.Get("Accept"), v2Representations[:])
	if !ok {
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	doc, _ := s.v2.Load().get()
	if doc == nil {
		writeUnavailable(w)
		return
	}
	serveDoc(w, r, doc, rep, true)
}

// serveV3Index serves the list of v3 documents with their current hashes.
func (s *Service) serveV3Index(w http.ResponseWriter, r *http.Request) {
	if !readOnly(w, r) {
		return
	}
	doc := s.v3.Load().index
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Etag", strconv.Quote(doc.etag))
	http.ServeContent(w, r, "", doc.modified, bytes.NewReader(doc.json))
}

// serveV3 serves one v3 document. With the current ?hash= the response
// may be cached for good; an old hash is redirected to the current URL.
func (s *Service) serveV3(w http.ResponseWriter, r *http.Request) {
	if !readOnly(w, r) {
		return
	}
	key := strings.TrimPrefix(r.URL.Path, "/openapi/v3/")
	docs := s.v3.Load()
	lazy, ok := docs.docs[key]
	if h := docs.remote[key]; !ok && h != nil {
		// An aggregated server's document, proxied as upstream does.
		h.ServeHTTP(w, r)
		return
	}
	if !ok {
		filters.WriteStatus(w, apierrors.NewGenericServerResponse(http.StatusNotFound, "", schema.GroupResource{}, "", "", 0, false))
		return
	}
	w.Header().Add("Vary", "Accept")
	rep, ok := negotiate(r.Header.Get("Accept"), v3Representations[:])
	if !ok {
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	// The hash is known without the document: a stale one is redirected
	// before anything is built.
	hash := r.URL.Query().Get("hash")
	if hash != "" && hash != lazy.src.hash {
		http.Redirect(w, r, serverRelativeURL(key, lazy.src.hash), http.StatusMovedPermanently)
		return
	}
	doc := lazy.get()
	if doc.err != nil {
		writeUnavailable(w)
		return
	}
	if hash != "" {
		w.Header().Set("Cache-Control", "public, immutable")
		// A year is "never" for HTTP caches (RFC 9111 advises no more).
		w.Header().Set("Expires", s.now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
	}
	serveDoc(w, r, doc, rep, false)
}

// serveDoc writes doc in rep from memory; http.ServeContent answers
// If-None-Match, If-Modified-Since, HEAD and ranges.
func serveDoc(w http.ResponseWriter, r *http.Request, doc *encodedDoc, rep representation, compress bool) {
	body := doc.json
	if rep.protobuf {
		b, err := doc.protobuf()
		if err != nil {
			writeUnavailable(w)
			return
		}
		body = b
	}
	h := w.Header()
	h.Set("Content-Type", rep.contentType)
	h.Set("Etag", strconv.Quote(doc.etag))
	if compress {
		h.Add("Vary", "Accept-Encoding")
		// Ranges are over the identity bytes; leave them uncompressed.
		if acceptsGzip(r.Header.Get("Accept-Encoding")) && r.Header.Get("Range") == "" {
			body = doc.gzipped(rep.protobuf)
			h.Set("Content-Encoding", "gzip")
		}
	}
	http.ServeContent(w, r, "", doc.modified, bytes.NewReader(body))
}

// acceptsGzip reports whether an Accept-Encoding header names gzip with a
// non-zero quality.
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		name, value, _ := strings.Cut(strings.TrimSpace(params), "=")
		if strings.TrimSpace(name) != "q" {
			return true
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		return err == nil && q > 0
	}
	return false
}

// readOnly answers methods other than GET and HEAD with 405.
func readOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	filters.WriteStatus(w, apierrors.NewGenericServerResponse(http.StatusMethodNotAllowed, r.Method, schema.GroupResource{}, "", "", 0, false))
	return false
}

func writeUnavailable(w http.ResponseWriter) {
	filters.WriteStatus(w, apierrors.NewServiceUnavailable("the OpenAPI document could not be encoded"))
}
