package openapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/server/filters"
)

const (
	v2JSON      = "application/json"
	v2Proto     = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	v2ProtoAt   = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	v3Proto     = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
	v3ProtoAt   = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
	gzipEncoded = "gzip"
)

func decodeV2Proto(t *testing.T, b []byte) {
	t.Helper()
	var doc openapi_v2.Document
	if err := proto.Unmarshal(b, &doc); err != nil {
		t.Fatalf("protobuf: %v", err)
	}
	if doc.GetSwagger() != "2.0" || len(doc.GetDefinitions().GetAdditionalProperties()) == 0 {
		t.Errorf("protobuf document: swagger %q, %d definitions", doc.GetSwagger(), len(doc.GetDefinitions().GetAdditionalProperties()))
	}
}

func decodeV3Proto(t *testing.T, b []byte) {
	t.Helper()
	var doc openapi_v3.Document
	if err := proto.Unmarshal(b, &doc); err != nil {
		t.Fatalf("protobuf: %v", err)
	}
	if doc.GetOpenapi() != "3.0.0" || len(doc.GetComponents().GetSchemas().GetAdditionalProperties()) == 0 {
		t.Errorf("protobuf document: openapi %q, %d schemas", doc.GetOpenapi(), len(doc.GetComponents().GetSchemas().GetAdditionalProperties()))
	}
}

func TestV2(t *testing.T) {
	s := sharedSchemeService(t)
	h := serve(s)
	doc, err := s.v2.Load().get()
	if err != nil {
		t.Fatal(err)
	}
	etag := strconv.Quote(doc.etag)
	tests := []struct {
		name         string
		method       string
		header       map[string]string
		wantStatus   int
		wantType     string
		wantEncoding string
		check        func(t *testing.T, body []byte)
	}{
		{name: "no accept is json", wantStatus: 200, wantType: v2JSON, check: wantBytes(doc.json)},
		{name: "json", header: map[string]string{"Accept": "application/json"}, wantStatus: 200, wantType: v2JSON, check: wantBytes(doc.json)},
		{name: "wildcard subtype", header: map[string]string{"Accept": "application/*"}, wantStatus: 200, wantType: v2JSON},
		{name: "protobuf", header: map[string]string{"Accept": v2Proto}, wantStatus: 200, wantType: v2Proto, check: decodeV2Proto},
		{name: "protobuf, @ spelling", header: map[string]string{"Accept": v2ProtoAt}, wantStatus: 200, wantType: v2Proto, check: decodeV2Proto},
		{name: "protobuf preferred by quality", header: map[string]string{"Accept": "application/json;q=0.5, " + v2ProtoAt}, wantStatus: 200, wantType: v2Proto},
		{name: "unservable then wildcard", header: map[string]string{"Accept": "text/html, */*;q=0.1"}, wantStatus: 200, wantType: v2JSON},
		{name: "not acceptable", header: map[string]string{"Accept": "text/html"}, wantStatus: 406},
		{name: "refused with q=0", header: map[string]string{"Accept": "application/json;q=0"}, wantStatus: 406},
		{
			name: "gzip", header: map[string]string{"Accept-Encoding": "gzip"}, wantStatus: 200, wantType: v2JSON, wantEncoding: gzipEncoded,
			check: func(t *testing.T, body []byte) { wantBytes(doc.json)(t, gunzip(t, body)) },
		},
		{
			name: "gzip protobuf", header: map[string]string{"Accept-Encoding": "br, gzip", "Accept": v2Proto}, wantStatus: 200, wantType: v2Proto, wantEncoding: gzipEncoded,
			check: func(t *testing.T, body []byte) { decodeV2Proto(t, gunzip(t, body)) },
		},
		{name: "gzip refused", header: map[string]string{"Accept-Encoding": "gzip;q=0"}, wantStatus: 200, wantType: v2JSON, check: wantBytes(doc.json)},
		{name: "etag matches", header: map[string]string{"If-None-Match": etag}, wantStatus: 304, check: wantBytes(nil)},
		{name: "etag differs", header: map[string]string{"If-None-Match": `"other"`}, wantStatus: 200, wantType: v2JSON},
		{name: "head", method: http.MethodHead, wantStatus: 200, wantType: v2JSON, check: wantBytes(nil)},
		{name: "post", method: http.MethodPost, wantStatus: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			rec := get(t, h, method, "/openapi/v2", tt.header)
			if rec.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.wantStatus, rec.Body)
			}
			if got := rec.Header().Get("Content-Type"); tt.wantType != "" && got != tt.wantType {
				t.Errorf("Content-Type %q, want %q", got, tt.wantType)
			}
			if got := rec.Header().Get("Content-Encoding"); got != tt.wantEncoding {
				t.Errorf("Content-Encoding %q, want %q", got, tt.wantEncoding)
			}
			if rec.Code < 300 || rec.Code == 304 {
				if got := rec.Header().Get("Etag"); got != etag {
					t.Errorf("Etag %q, want %q", got, etag)
				}
				if got := rec.Header().Values("Vary"); strings.Join(got, ",") != "Accept,Accept-Encoding" {
					t.Errorf("Vary %q, want Accept and Accept-Encoding", got)
				}
			}
			if rec.Code == 200 && rec.Header().Get("Last-Modified") != fixedNow.Format(http.TimeFormat) {
				t.Errorf("Last-Modified %q, want %q", rec.Header().Get("Last-Modified"), fixedNow.Format(http.TimeFormat))
			}
			if method == http.MethodHead && rec.Header().Get("Content-Length") != strconv.Itoa(len(doc.json)) {
				t.Errorf("HEAD Content-Length %q, want %d", rec.Header().Get("Content-Length"), len(doc.json))
			}
			if tt.check != nil {
				tt.check(t, rec.Body.Bytes())
			}
		})
	}
}

func wantBytes(want []byte) func(t *testing.T, body []byte) {
	return func(t *testing.T, body []byte) {
		t.Helper()
		if !bytes.Equal(body, want) {
			t.Errorf("body of %d bytes, want %d bytes", len(body), len(want))
		}
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	return out
}

// index fetches and decodes /openapi/v3.
func index(t *testing.T, h http.Handler) (v3Index, *http.Response) {
	t.Helper()
	rec := get(t, h, http.MethodGet, "/openapi/v3", nil)
	if rec.Code != 200 {
		t.Fatalf("index: status %d: %s", rec.Code, rec.Body)
	}
	var idx v3Index
	if err := json.Unmarshal(rec.Body.Bytes(), &idx); err != nil {
		t.Fatalf("index: %v", err)
	}
	return idx, rec.Result()
}

func TestV3Index(t *testing.T) {
	s := sharedSchemeService(t)
	h := serve(s)
	idx, resp := index(t, h)
	for _, key := range []string{"api", "api/v1", "apis", "apis/apps", "apis/apps/v1", "apis/rbac.authorization.k8s.io/v1", "version"} {
		if _, ok := idx.Paths[key]; !ok {
			t.Errorf("index lacks %q", key)
		}
	}
	if resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	// Every listed URL is served under its hash, which is its ETag.
	for key, e := range idx.Paths {
		rec := get(t, h, http.MethodGet, e.ServerRelativeURL, nil)
		if rec.Code != 200 {
			t.Errorf("%s: status %d", e.ServerRelativeURL, rec.Code)
			continue
		}
		_, hash, _ := strings.Cut(e.ServerRelativeURL, "?hash=")
		if got := rec.Header().Get("Etag"); got != strconv.Quote(hash) {
			t.Errorf("%s: Etag %s, want the hash", key, got)
		}
	}
	etag := resp.Header.Get("Etag")
	if etag == "" {
		t.Fatal("index has no Etag")
	}
	if rec := get(t, h, http.MethodGet, "/openapi/v3", map[string]string{"If-None-Match": etag}); rec.Code != 304 {
		t.Errorf("If-None-Match: status %d, want 304", rec.Code)
	}
	if rec := get(t, h, http.MethodHead, "/openapi/v3", nil); rec.Code != 200 || rec.Body.Len() != 0 {
		t.Errorf("HEAD: status %d, %d bytes", rec.Code, rec.Body.Len())
	}
}

func TestV3Document(t *testing.T) {
	s := sharedSchemeService(t)
	h := serve(s)
	idx, _ := index(t, h)
	current := idx.Paths["apis/apps/v1"].ServerRelativeURL
	doc := s.v3.Load().docs["apis/apps/v1"].get()
	etag := strconv.Quote(doc.etag)
	expires := fixedNow.AddDate(1, 0, 0).Format(http.TimeFormat)
	tests := []struct {
		name         string
		method       string
		target       string
		header       map[string]string
		wantStatus   int
		wantType     string
		wantLocation string
		check        func(t *testing.T, body []byte)
	}{
		{name: "current hash", target: current, wantStatus: 200, wantType: "application/json", check: wantBytes(doc.json)},
		{name: "no hash", target: "/openapi/v3/apis/apps/v1", wantStatus: 200, wantType: "application/json", check: wantBytes(doc.json)},
		{name: "stale hash", target: "/openapi/v3/apis/apps/v1?hash=ABC", wantStatus: 301, wantLocation: current},
		{name: "protobuf", target: current, header: map[string]string{"Accept": v3Proto}, wantStatus: 200, wantType: v3Proto, check: decodeV3Proto},
		{name: "protobuf, @ spelling", target: current, header: map[string]string{"Accept": v3ProtoAt}, wantStatus: 200, wantType: v3Proto, check: decodeV3Proto},
		{name: "not acceptable", target: current, header: map[string]string{"Accept": "application/yaml"}, wantStatus: 406},
		{name: "etag matches", target: current, header: map[string]string{"If-None-Match": etag}, wantStatus: 304, check: wantBytes(nil)},
		{name: "head", method: http.MethodHead, target: current, wantStatus: 200, wantType: "application/json", check: wantBytes(nil)},
		{name: "unknown group version", target: "/openapi/v3/apis/nope.example.com/v1", wantStatus: 404, wantType: "application/json", check: wantNotFoundStatus},
		{name: "no group version", target: "/openapi/v3/", wantStatus: 404, check: wantNotFoundStatus},
		{name: "trailing slash", target: "/openapi/v3/apis/apps/v1/", wantStatus: 404},
		{name: "put", method: http.MethodPut, target: current, wantStatus: 405},
		{name: "no gzip for v3, as upstream", target: current, header: map[string]string{"Accept-Encoding": "gzip"}, wantStatus: 200, check: wantBytes(doc.json)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			rec := get(t, h, method, tt.target, tt.header)
			if rec.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.wantStatus, rec.Body)
			}
			hdr := rec.Header()
			if tt.wantType != "" && hdr.Get("Content-Type") != tt.wantType {
				t.Errorf("Content-Type %q, want %q", hdr.Get("Content-Type"), tt.wantType)
			}
			// Only a served document under its current hash is immutable.
			wantCache, wantExpires := "", ""
			if strings.HasPrefix(tt.target, current) && (tt.wantStatus == 200 || tt.wantStatus == 304) {
				wantCache, wantExpires = "public, immutable", expires
			}
			if hdr.Get("Cache-Control") != wantCache {
				t.Errorf("Cache-Control %q, want %q", hdr.Get("Cache-Control"), wantCache)
			}
			if hdr.Get("Expires") != wantExpires {
				t.Errorf("Expires %q, want %q", hdr.Get("Expires"), wantExpires)
			}
			if hdr.Get("Location") != tt.wantLocation {
				t.Errorf("Location %q, want %q", hdr.Get("Location"), tt.wantLocation)
			}
			if tt.wantStatus == 200 && hdr.Get("Etag") != etag {
				t.Errorf("Etag %q, want %q", hdr.Get("Etag"), etag)
			}
			if tt.check != nil {
				tt.check(t, rec.Body.Bytes())
			}
		})
	}
}

func wantNotFoundStatus(t *testing.T, body []byte) {
	t.Helper()
	var status metav1.Status
	if err := json.Unmarshal(body, &status); err != nil {
		t.Fatalf("not a Status: %v: %s", err, body)
	}
	if status.Kind != "Status" || status.Code != 404 || status.Reason != metav1.StatusReasonNotFound {
		t.Errorf("Status %+v, want a 404 NotFound", status)
	}
}

// TestV3CacheControlThroughChain checks the headers a client sees behind
// the server's cache-control filter: documents under their hash are
// immutable, the others (and the index) no-cache, private, as upstream.
func TestV3CacheControlThroughChain(t *testing.T) {
	s := sharedSchemeService(t)
	h := filters.WithCacheControl(serve(s))
	idx, _ := index(t, h)
	tests := []struct {
		target string
		want   string
	}{
		{idx.Paths["apis/apps/v1"].ServerRelativeURL, "public, immutable"},
		{"/openapi/v3/apis/apps/v1", "no-cache, private"},
		{"/openapi/v3", "no-cache, private"},
		{"/openapi/v2", "no-cache, private"},
	}
	for _, tt := range tests {
		rec := get(t, h, http.MethodGet, tt.target, nil)
		if got := rec.Header().Get("Cache-Control"); got != tt.want {
			t.Errorf("%s: Cache-Control %q, want %q", tt.target, got, tt.want)
		}
	}
}

func TestAcceptsGzip(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"GZIP", true},
		{"deflate, gzip;q=0.5", true},
		{"gzip;q=0", false},
		{"gzip; q=0.0", false},
		{"br", false},
		{"*", false},
	}
	for _, tt := range tests {
		if got := acceptsGzip(tt.header); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}
