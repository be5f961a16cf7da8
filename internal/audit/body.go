package audit

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"mime"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// MaxBodyBytes bounds what an event records of a request or response body;
// a larger body is left out of the event rather than cut.
const MaxBodyBytes = 3 << 20

// protobufMediaType is the Kubernetes protobuf encoding, which client-go's
// clientsets prefer for built-in types.
const protobufMediaType = "application/vnd.kubernetes.protobuf"

// protobufDecoder reads the protobuf bodies of the built-in types (those of
// k8s.io/api); it is never modified after initialization.
var protobufDecoder = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

// BodyObject returns body as an event's requestObject or responseObject:
// JSON as it came (any +json media type, patches included), YAML and the
// protobuf of built-in types converted to JSON, gzip undone. Other media
// types (CBOR, protobuf of unknown types) and malformed or oversized data
// give nil: events are JSON and hold no opaque bytes.
// omitManagedFields drops metadata.managedFields of the object, of list
// items and of table rows.
func BodyObject(contentType, contentEncoding string, body []byte, omitManagedFields bool) *runtime.Unknown {
	if len(body) == 0 || len(body) > MaxBodyBytes {
		return nil
	}
	if strings.EqualFold(contentEncoding, "gzip") {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil
		}
		plain, err := io.ReadAll(io.LimitReader(zr, MaxBodyBytes+1))
		if err != nil || len(plain) > MaxBodyBytes {
			return nil
		}
		body = plain
	} else if contentEncoding != "" && !strings.EqualFold(contentEncoding, "identity") {
		return nil
	}
	raw, ok := toJSON(contentType, body)
	if !ok {
		return nil
	}
	if omitManagedFields && bytes.Contains(raw, []byte(`"managedFields"`)) {
		raw = withoutManagedFields(raw)
	}
	return &runtime.Unknown{Raw: raw, ContentType: runtime.ContentTypeJSON}
}

func toJSON(contentType string, body []byte) ([]byte, bool) {
	mediaType := ""
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil {
			return nil, false
		}
		mediaType = mt
	}
	switch {
	case mediaType == "", mediaType == "application/json", strings.HasSuffix(mediaType, "+json"):
		if !json.Valid(body) {
			return nil, false
		}
		return compact(body), true
	case mediaType == "application/yaml", strings.HasSuffix(mediaType, "+yaml"):
		j, err := yaml.YAMLToJSON(body)
		return j, err == nil && json.Valid(j)
	case mediaType == protobufMediaType:
		return protobufToJSON(body)
	}
	return nil, false
}

// protobufToJSON decodes a k8s protobuf envelope into its Go type and
// encodes that as JSON, apiVersion and kind included.
func protobufToJSON(body []byte) ([]byte, bool) {
	obj, gvk, err := protobufDecoder.Decode(body, nil, nil)
	if err != nil {
		return nil, false
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	j, err := json.Marshal(obj)
	return j, err == nil
}

// compact drops insignificant whitespace so that each event stays on one
// line of the log.
func compact(body []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, body); err != nil {
		return body
	}
	return buf.Bytes()
}

// withoutManagedFields re-encodes raw without managed fields; numbers keep
// their text. On any surprise raw is returned as it is.
func withoutManagedFields(raw []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		return raw
	}
	dropManagedFields(obj)
	if items, ok := obj["items"].([]any); ok {
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				dropManagedFields(m)
			}
		}
	}
	if rows, ok := obj["rows"].([]any); ok {
		for _, row := range rows {
			if m, ok := row.(map[string]any); ok {
				if o, ok := m["object"].(map[string]any); ok {
					dropManagedFields(o)
				}
			}
		}
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return out
}

func dropManagedFields(obj map[string]any) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
}

// StatusFrom returns the Status a JSON response body holds, nil when it
// holds something else.
func StatusFrom(contentType string, body []byte) *metav1.Status {
	raw, ok := toJSON(contentType, body)
	if !ok {
		return nil
	}
	var s metav1.Status
	if err := json.Unmarshal(raw, &s); err != nil || s.Kind != "Status" {
		return nil
	}
	return &s
}
