package openapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
)

// encodedDoc is one document as served: its JSON, encoded once, and the
// protobuf and gzip forms derived from it on first use (parsing the JSON
// back into gnostic's model is slow, and most clients never ask for it).
// It is immutable once built; a changed document is a new encodedDoc.
type encodedDoc struct {
	json []byte
	// etag is an upper-case hex SHA-512: of json for the v2 document and
	// the index, as upstream; of its source for a v3 document, whose hash
	// is announced before it is encoded. The protobuf form shares it
	// (responses vary on Accept).
	etag     string
	modified time.Time
	// err is set when the document could not be encoded: it is served as
	// unavailable rather than as stale bytes under a fresh hash.
	err error

	toProto func([]byte) ([]byte, error)

	protoOnce sync.Once
	proto     []byte
	protoErr  error

	gzipJSONOnce  sync.Once
	gzipJSON      []byte
	gzipProtoOnce sync.Once
	gzipProto     []byte
}

func newEncodedDoc(json []byte, etag string, modified time.Time, toProto func([]byte) ([]byte, error)) *encodedDoc {
	return &encodedDoc{json: json, etag: etag, modified: modified, toProto: toProto}
}

// failedDoc stands for a document whose encoding failed.
func failedDoc(err error) *encodedDoc {
	return &encodedDoc{err: err}
}

func computeETag(data []byte) string {
	sum := sha512.Sum512(data)
	return hexHash(sum[:])
}

func hexHash(sum []byte) string {
	return strings.ToUpper(hex.EncodeToString(sum))
}

// protobuf returns the gnostic protobuf form of the document.
func (d *encodedDoc) protobuf() ([]byte, error) {
	d.protoOnce.Do(func() {
		d.proto, d.protoErr = d.toProto(d.json)
	})
	return d.proto, d.protoErr
}

// gzipped returns the gzip form of the JSON or protobuf bytes. Only
// called for protobuf after protobuf() succeeded.
func (d *encodedDoc) gzipped(protobuf bool) []byte {
	if protobuf {
		d.gzipProtoOnce.Do(func() { d.gzipProto = gzipBytes(d.proto) })
		return d.gzipProto
	}
	d.gzipJSONOnce.Do(func() { d.gzipJSON = gzipBytes(d.json) })
	return d.gzipJSON
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	// Writes to a bytes.Buffer cannot fail.
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// v2ToProto converts a swagger 2.0 JSON document to gnostic's protobuf.
func v2ToProto(json []byte) ([]byte, error) {
	doc, err := openapi_v2.ParseDocument(json)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(doc)
}

// v3ToProto converts an OpenAPI 3.0 JSON document to gnostic's protobuf.
func v3ToProto(json []byte) ([]byte, error) {
	doc, err := openapi_v3.ParseDocument(json)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(doc)
}
