package handlers

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/negotiation"
	"github.com/kapi-dev/kapi/internal/storage"
)

// cachedItemCodecs are a request's codecs when its list came from a watch
// cache that said which object versions filled it (storage.ListSources):
// the (non-pretty) JSON encoder then copies each item's bytes from what
// an earlier list wrote for the same object version, and encodes only the
// items no list wrote before. Everything else is left to the codecs.
type cachedItemCodecs struct {
	runtime.NegotiatedSerializer
	json    runtime.Encoder
	sources *storage.ListSources
}

// wantsCachedItems reports whether a list answered in mediaType may copy
// its items' bytes from the cache: plain (non-pretty, unconverted) JSON.
func wantsCachedItems(mediaType negotiation.MediaTypeOptions) bool {
	return mediaType.Convert == nil && !mediaType.Pretty && mediaType.Accepted.MediaType == runtime.ContentTypeJSON
}

// withCachedItems returns s's codecs for writing a list whose sources are
// in sources; s itself when JSON is not among them.
func withCachedItems(s runtime.NegotiatedSerializer, sources *storage.ListSources) runtime.NegotiatedSerializer {
	info, ok := runtime.SerializerInfoForMediaType(s.SupportedMediaTypes(), runtime.ContentTypeJSON)
	if !ok || info.Serializer == nil {
		return s
	}
	return cachedItemCodecs{NegotiatedSerializer: s, json: info.Serializer, sources: sources}
}

func (c cachedItemCodecs) EncoderForVersion(e runtime.Encoder, gv runtime.GroupVersioner) runtime.Encoder {
	if e != nil && e == c.json {
		e = cachedItemsEncoder{Encoder: e, sources: c.sources}
	}
	return c.NegotiatedSerializer.EncoderForVersion(e, gv)
}

// cachedItemsEncoder writes the list the cache filled with the bytes
// apimachinery's streaming JSON encoder writes for it; any other object,
// or a list converted on its way here, goes to its Encoder.
type cachedItemsEncoder struct {
	runtime.Encoder
	sources *storage.ListSources
}

func (e cachedItemsEncoder) Encode(obj runtime.Object, w io.Writer) error {
	encs := e.sources.For(obj)
	if len(encs) == 0 {
		return e.Encoder.Encode(obj, w)
	}
	parts, ok := typedListParts(obj)
	if !ok || parts.items.Len() != len(encs) {
		return e.Encoder.Encode(obj, w)
	}
	// The bytes of an item depend on the serializer and on the type and
	// version it is served as; the kind is cleared in every list item.
	id := string(e.Encoder.Identifier()) + ";list-item;" + obj.GetObjectKind().GroupVersionKind().String()
	s := newJSONStream(w)
	s.raw("{")
	if parts.typeMeta.Kind != "" {
		s.raw(`"kind":`)
		s.value(parts.typeMeta.Kind, ",")
	}
	if parts.typeMeta.APIVersion != "" {
		s.raw(`"apiVersion":`)
		s.value(parts.typeMeta.APIVersion, ",")
	}
	s.raw(`"metadata":`)
	s.value(parts.listMeta, `,"items":[`)
	for i, enc := range encs {
		if s.err != nil {
			break
		}
		if i > 0 {
			s.raw(",")
		}
		item := parts.items.Index(i).Addr().Interface()
		s.err = enc.Write(id, func() ([]byte, error) { return s.encoded(item) }, s.w)
	}
	s.raw("]}\n")
	return s.err
}

// encoded returns v as encoding/json writes it, in the stream's buffer
// (valid until the next use).
func (s *jsonStream) encoded(v any) ([]byte, error) {
	s.buf.Reset()
	if err := s.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(s.buf.Bytes(), []byte("\n")), nil
}

// listParts are the fields of a typed list.
type listParts struct {
	typeMeta metav1.TypeMeta
	listMeta *metav1.ListMeta
	items    reflect.Value
}

// typedListParts returns the list meta and items of a list shaped as
// apimachinery's streaming encoder requires (TypeMeta inline, ListMeta as
// "metadata", a non-empty slice of structs as "items", nothing else), so
// that writing its parts one by one gives the same bytes.
func typedListParts(obj runtime.Object) (listParts, bool) {
	if _, ok := obj.(runtime.Unstructured); ok {
		return listParts{}, false
	}
	if _, ok := obj.(json.Marshaler); ok {
		return listParts{}, false
	}
	v, err := conversion.EnforcePtr(obj)
	if err != nil || v.Kind() != reflect.Struct {
		return listParts{}, false
	}
	t := v.Type()
	if t.NumField() != 3 || !t.Field(0).Anonymous || t.Field(0).Type != reflect.TypeFor[metav1.TypeMeta]() ||
		t.Field(1).Type != reflect.TypeFor[metav1.ListMeta]() || t.Field(1).Tag.Get("json") != "metadata,omitempty" ||
		t.Field(2).Tag.Get("json") != "items" || t.Field(2).Type.Kind() != reflect.Slice ||
		t.Field(2).Type.Elem().Kind() != reflect.Struct {
		return listParts{}, false
	}
	if tag, ok := t.Field(0).Tag.Lookup("json"); !ok || (tag != "" && tag != ",inline") {
		return listParts{}, false
	}
	items := v.Field(2)
	if items.Len() == 0 {
		return listParts{}, false
	}
	return listParts{
		typeMeta: v.Field(0).Interface().(metav1.TypeMeta),
		listMeta: v.Field(1).Addr().Interface().(*metav1.ListMeta),
		items:    items,
	}, true
}
