package handlers

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// clearItemKinds empties kind and apiVersion of a typed list's items.
// kube-apiserver's list items carry neither: its storage holds internal
// objects, whose conversion to the served version leaves the item's type
// meta empty, and only the list gets its kind. kapi's storage decodes
// versioned objects that do carry it. Custom resources (unstructured) keep
// theirs, as upstream. The items are the list's own copies (a list shares
// at most maps and slices with a cache, never item structs), so they may
// be changed.
func clearItemKinds(list runtime.Object) {
	if _, ok := list.(runtime.Unstructured); ok {
		return
	}
	v, err := conversion.EnforcePtr(list)
	if err != nil || v.Kind() != reflect.Struct {
		return
	}
	items := v.FieldByName("Items")
	if !items.IsValid() || items.Kind() != reflect.Slice || items.Type().Elem().Kind() != reflect.Struct {
		return
	}
	for i := range items.Len() {
		obj, ok := items.Index(i).Addr().Interface().(runtime.Object)
		if !ok {
			return // not a list of API objects (RawExtension items)
		}
		if kind := obj.GetObjectKind(); !kind.GroupVersionKind().Empty() {
			kind.SetGroupVersionKind(schema.GroupVersionKind{})
		}
	}
}

// tableCodecs is the meta.k8s.io codecs whose (non-pretty) JSON encoder
// writes a Table row by row, as the resources' codecs do their lists:
// apimachinery streams lists of three fields, and a Table has four.
type tableCodecs struct {
	runtime.NegotiatedSerializer
	json runtime.Encoder
}

func newTableCodecs(s runtime.NegotiatedSerializer) tableCodecs {
	info, _ := runtime.SerializerInfoForMediaType(s.SupportedMediaTypes(), runtime.ContentTypeJSON)
	return tableCodecs{NegotiatedSerializer: s, json: info.Serializer}
}

func (c tableCodecs) EncoderForVersion(e runtime.Encoder, gv runtime.GroupVersioner) runtime.Encoder {
	if e != nil && e == c.json {
		e = tableEncoder{Encoder: e}
	}
	return c.NegotiatedSerializer.EncoderForVersion(e, gv)
}

// tableEncoder streams Tables and leaves everything else to its Encoder.
type tableEncoder struct{ runtime.Encoder }

func (e tableEncoder) Encode(obj runtime.Object, w io.Writer) error {
	table, ok := obj.(*metav1.Table)
	if !ok {
		return e.Encoder.Encode(obj, w)
	}
	return newJSONStream(w).table(table)
}

// jsonStream writes JSON values one at a time, with the bytes
// encoding/json gives the whole object: each value is encoded by the same
// encoder (HTML escaping included) into a reused buffer.
type jsonStream struct {
	w   io.Writer
	buf bytes.Buffer
	enc *json.Encoder
	err error
}

func newJSONStream(w io.Writer) *jsonStream {
	s := &jsonStream{w: w}
	s.enc = json.NewEncoder(&s.buf)
	return s
}

func (s *jsonStream) raw(text string) {
	if s.err == nil {
		_, s.err = io.WriteString(s.w, text)
	}
}

// value writes v followed by suffix.
func (s *jsonStream) value(v any, suffix string) {
	if s.err != nil {
		return
	}
	s.buf.Reset()
	if s.err = s.enc.Encode(v); s.err != nil {
		return
	}
	s.buf.Truncate(s.buf.Len() - 1) // Encode's newline
	s.buf.WriteString(suffix)
	_, s.err = s.w.Write(s.buf.Bytes())
}

// table writes t as encoding/json does: type meta (omitted when empty),
// metadata, columnDefinitions and rows (null when nil), then a newline.
func (s *jsonStream) table(t *metav1.Table) error {
	s.raw("{")
	if t.Kind != "" {
		s.raw(`"kind":`)
		s.value(t.Kind, ",")
	}
	if t.APIVersion != "" {
		s.raw(`"apiVersion":`)
		s.value(t.APIVersion, ",")
	}
	s.raw(`"metadata":`)
	s.value(&t.ListMeta, ",")
	s.raw(`"columnDefinitions":`)
	s.value(t.ColumnDefinitions, ",")
	s.raw(`"rows":`)
	if t.Rows == nil {
		s.raw("null")
	} else {
		s.raw("[")
		for i := range t.Rows {
			sep := ","
			if i == len(t.Rows)-1 {
				sep = ""
			}
			s.row(&t.Rows[i], sep)
		}
		s.raw("]")
	}
	s.raw("}\n")
	return s.err
}

// row writes r as encoding/json does. A row's object is a RawExtension,
// whose MarshalJSON marshals the object and hands the bytes back for the
// outer encoder to check and compact again; writing the object with the
// stream's encoder gives the same bytes for half the work. A row with raw
// bytes goes the usual way, which compacts them.
func (s *jsonStream) row(r *metav1.TableRow, suffix string) {
	if r.Object.Raw != nil || r.Object.Object == nil {
		s.value(r, suffix)
		return
	}
	s.raw(`{"cells":`)
	if len(r.Conditions) > 0 {
		s.value(r.Cells, `,"conditions":`)
		s.value(r.Conditions, `,"object":`)
	} else {
		s.value(r.Cells, `,"object":`)
	}
	s.value(r.Object.Object, "}"+suffix)
}
