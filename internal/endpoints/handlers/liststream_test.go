package handlers

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kapi-dev/kapi/internal/endpoints/handlers/responsewriters"
)

// encodeWith encodes obj for gv in mediaType with the codecs s.
func encodeWith(t *testing.T, s runtime.NegotiatedSerializer, mediaType string, gv schema.GroupVersion, obj runtime.Object) []byte {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(s.SupportedMediaTypes(), mediaType)
	if !ok {
		t.Fatalf("no serializer for %s", mediaType)
	}
	var enc runtime.Encoder = info.Serializer // unstructured needs no conversion
	if _, ok := obj.(runtime.Unstructured); !ok {
		enc = s.EncoderForVersion(info.Serializer, gv)
	}
	var buf bytes.Buffer
	if err := enc.Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func testConfigMaps(n int) []corev1.ConfigMap {
	items := make([]corev1.ConfigMap, n)
	for i := range items {
		items[i] = corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i), Namespace: "ns", Labels: map[string]string{"a": "<&>"}},
			Data:       map[string]string{"k": "v\u2028<html>"},
		}
	}
	return items
}

// TestStreamedTableIsBuffered pins that a Table written row by row has
// exactly the bytes of encoding/json on the whole Table, for every shape
// a Table takes (no headers, no rows, embedded objects, characters
// encoding/json escapes).
func TestStreamedTableIsBuffered(t *testing.T) {
	cm := &testConfigMaps(1)[0]
	partial, err := partialObjectMetadata(cm, metav1.SchemeGroupVersion)
	if err != nil {
		t.Fatal(err)
	}
	cols := []metav1.TableColumnDefinition{{Name: "Name", Type: "string", Format: "name"}, {Name: "Age", Type: "string"}}
	row := func(obj runtime.Object) metav1.TableRow {
		return metav1.TableRow{Cells: []any{"a<b>", int64(3), 1.5, nil}, Object: runtime.RawExtension{Object: obj}}
	}
	remaining := int64(5)
	tables := map[string]*metav1.Table{
		"nil rows and columns": {},
		"empty rows":           {ColumnDefinitions: cols, Rows: []metav1.TableRow{}},
		"rows with metadata": {ListMeta: metav1.ListMeta{ResourceVersion: "7", Continue: "c", RemainingItemCount: &remaining},
			ColumnDefinitions: cols, Rows: []metav1.TableRow{row(partial), row(partial)}},
		"rows with objects": {ColumnDefinitions: cols, Rows: []metav1.TableRow{row(cm), {Cells: []any{"x"},
			Conditions: []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue}}}}},
		"rows without objects": {Rows: []metav1.TableRow{{Cells: []any{"x"}}}},
		"rows with objects and conditions": {Rows: []metav1.TableRow{{Cells: []any{"x", nil}, Object: runtime.RawExtension{Object: partial},
			Conditions: []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionFalse, Reason: "<r>", Message: "m&"}}}}},
		"rows with unstructured objects": {Rows: []metav1.TableRow{row(&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w<>"}, "spec": map[string]any{"n": int64(1)}}})}},
		"rows with raw objects": {Rows: []metav1.TableRow{{Cells: []any{"x"}, Object: runtime.RawExtension{Raw: []byte(`{ "a" : [1, 2] ,"b":"<"}`)}}}},
	}
	for name, table := range tables {
		for _, gv := range []schema.GroupVersion{metav1.SchemeGroupVersion, metav1beta1.SchemeGroupVersion} {
			t.Run(name+" "+gv.Version, func(t *testing.T) {
				want := encodeWith(t, metainternalversionscheme.Codecs, runtime.ContentTypeJSON, gv, table.DeepCopy())
				got := encodeWith(t, tableMetaCodecs, runtime.ContentTypeJSON, gv, table.DeepCopy())
				if !bytes.Equal(got, want) {
					t.Errorf("streamed:\n%s\nbuffered:\n%s", got, want)
				}
			})
		}
	}
}

// TestTableFieldsAreStreamed fails when apimachinery's Table gains a field
// the streaming encoder would not write.
func TestTableFieldsAreStreamed(t *testing.T) {
	var names []string
	for f := range reflect.TypeFor[metav1.Table]().Fields() {
		names = append(names, f.Name)
	}
	if want := "[TypeMeta ListMeta ColumnDefinitions Rows]"; fmt.Sprint(names) != want {
		t.Errorf("metav1.Table fields %v, the table encoder writes %s", names, want)
	}
}

// TestTableRowFieldsAreStreamed fails when apimachinery's TableRow gains a
// field the streaming encoder would not write.
func TestTableRowFieldsAreStreamed(t *testing.T) {
	var names []string
	for f := range reflect.TypeFor[metav1.TableRow]().Fields() {
		names = append(names, f.Name+" "+f.Tag.Get("json"))
	}
	if want := "[Cells cells Conditions conditions,omitempty Object object,omitempty]"; fmt.Sprint(names) != want {
		t.Errorf("metav1.TableRow fields %v, the table encoder writes %s", names, want)
	}
}

// TestStreamedListsAreBuffered pins that the streaming codecs write every
// list kind the handlers send with the bytes of the buffered codecs.
func TestStreamedListsAreBuffered(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	streaming, buffered := responsewriters.NewCodecFactory(scheme), serializer.NewCodecFactory(scheme)
	remaining := int64(3)
	listMeta := metav1.ListMeta{ResourceVersion: "9", Continue: "tok", RemainingItemCount: &remaining}
	partials := func(gv schema.GroupVersion) runtime.Object {
		list := &corev1.ConfigMapList{ListMeta: listMeta, Items: testConfigMaps(3)}
		obj, err := asPartialObjectMetadataList(list, gv)
		if err != nil {
			t.Fatal(err)
		}
		return obj
	}
	u := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetList",
		"metadata": map[string]any{"resourceVersion": "4", "continue": "x"}}}
	for i := range 3 {
		u.Items = append(u.Items, unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": fmt.Sprint("w", i)}, "spec": map[string]any{"size": int64(i), "html": "<b>"}}})
	}
	cases := []struct {
		name               string
		streaming, buffers runtime.NegotiatedSerializer
		gv                 schema.GroupVersion
		obj                func() runtime.Object
		mediaTypes         []string
	}{
		{"configmaps", streaming, buffered, corev1.SchemeGroupVersion,
			func() runtime.Object { return &corev1.ConfigMapList{ListMeta: listMeta, Items: testConfigMaps(20)} }, nil},
		{"empty configmaps", streaming, buffered, corev1.SchemeGroupVersion,
			func() runtime.Object { return &corev1.ConfigMapList{Items: []corev1.ConfigMap{}} }, nil},
		{"partial v1", metaCodecs, metainternalversionscheme.Codecs, metav1.SchemeGroupVersion,
			func() runtime.Object { return partials(metav1.SchemeGroupVersion) }, nil},
		{"partial v1beta1", metaCodecs, metainternalversionscheme.Codecs, metav1beta1.SchemeGroupVersion,
			func() runtime.Object { return partials(metav1beta1.SchemeGroupVersion) }, nil},
		{"custom resources", streaming, buffered, schema.GroupVersion{Group: "example.com", Version: "v1"},
			func() runtime.Object { return u.DeepCopy() }, []string{runtime.ContentTypeJSON}},
	}
	for _, c := range cases {
		mediaTypes := c.mediaTypes
		if mediaTypes == nil {
			mediaTypes = []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf}
		}
		for _, mt := range mediaTypes {
			t.Run(c.name+" "+mt, func(t *testing.T) {
				want := encodeWith(t, c.buffers, mt, c.gv, c.obj())
				got := encodeWith(t, c.streaming, mt, c.gv, c.obj())
				if !bytes.Equal(got, want) {
					t.Errorf("streamed:\n%q\nbuffered:\n%q", got, want)
				}
			})
		}
	}
}

// TestClearItemKinds pins which lists lose their items' type meta: typed
// lists do, custom resources (unstructured) and RawExtension lists keep
// theirs.
func TestClearItemKinds(t *testing.T) {
	typed := &corev1.ConfigMapList{Items: testConfigMaps(2)}
	for i := range typed.Items {
		typed.Items[i].SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	}
	clearItemKinds(typed)
	for _, item := range typed.Items {
		if item.Kind != "" || item.APIVersion != "" {
			t.Errorf("typed item kept %+v", item.TypeMeta)
		}
	}
	u := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget"}}}}
	clearItemKinds(u)
	if u.Items[0].GetKind() != "Widget" || u.Items[0].GetAPIVersion() != "example.com/v1" {
		t.Errorf("custom resource item lost its kind: %v", u.Items[0].Object)
	}
	raw := &metav1.List{Items: []runtime.RawExtension{{Object: &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}}}}}
	clearItemKinds(raw)
	if raw.Items[0].Object.GetObjectKind().GroupVersionKind().Kind != "ConfigMap" {
		t.Error("a RawExtension item lost its kind")
	}
}
