package pbdecode

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

var configMapGVK = corev1.SchemeGroupVersion.WithKind("ConfigMap")

func encode(t testing.TB, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := scheme.Codecs.EncoderForVersion(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme), corev1.SchemeGroupVersion)
	if err := enc.Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// wrap builds an envelope by hand: prefix, then the given fields.
func wrap(fields ...[]byte) []byte {
	return append(bytes.Clone(prefix), bytes.Join(fields, nil)...)
}

func bytesField(num protowire.Number, v []byte) []byte {
	b := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func typeMetaField(apiVersion, kind string) []byte {
	var tm []byte
	if apiVersion != "" {
		tm = bytesField(typeMetaVersion, []byte(apiVersion))
	}
	if kind != "" {
		tm = append(tm, bytesField(typeMetaKind, []byte(kind))...)
	}
	return bytesField(unknownTypeMeta, tm)
}

func configMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"k": "v"}, ResourceVersion: "7",
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{}}`)}}}},
		Data:       map[string]string{"x": strings.Repeat("y", 100)},
		BinaryData: map[string][]byte{"b": {1, 2, 3}},
	}
}

func pod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Annotations: map[string]string{"a": "b"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}},
	}
}

// decodeCases are bodies and targets on which both decoders must agree.
func decodeCases(t testing.TB) []struct {
	name     string
	data     []byte
	defaults *schema.GroupVersionKind
	into     func() runtime.Object
} {
	cmBytes := encode(t, configMap())
	cm := configMap()
	cmRaw, err := cm.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	none := func() runtime.Object { return nil }
	intoConfigMap := func() runtime.Object {
		// Left-over content must be reset.
		return &corev1.ConfigMap{Data: map[string]string{"old": "x"}, Immutable: new(bool)}
	}
	return []struct {
		name     string
		data     []byte
		defaults *schema.GroupVersionKind
		into     func() runtime.Object
	}{
		{"config map, new object", cmBytes, nil, none},
		{"config map, into one", cmBytes, nil, intoConfigMap},
		{"config map, into a secret", cmBytes, nil, func() runtime.Object { return &corev1.Secret{} }},
		{"config map, with defaults", cmBytes, &configMapGVK, none},
		{"pod", encode(t, pod()), nil, none},
		{"into unknown", cmBytes, nil, func() runtime.Object { return &runtime.Unknown{} }},
		{"no kind, defaults give it", wrap(typeMetaField("v1", ""), bytesField(unknownRaw, cmRaw)), &configMapGVK, none},
		{"no kind, no defaults", wrap(typeMetaField("v1", ""), bytesField(unknownRaw, cmRaw)), nil, none},
		{"no kind, into gives it", wrap(typeMetaField("v1", ""), bytesField(unknownRaw, cmRaw)), nil, intoConfigMap},
		{"no version, no defaults", wrap(typeMetaField("", "ConfigMap"), bytesField(unknownRaw, cmRaw)), nil, none},
		{"no version, into gives the group", wrap(typeMetaField("", "ConfigMap"), bytesField(unknownRaw, cmRaw)), nil, intoConfigMap},
		{"no type meta", wrap(bytesField(unknownRaw, cmRaw)), &configMapGVK, none},
		{"no raw", wrap(typeMetaField("v1", "ConfigMap")), nil, none},
		{"content type and encoding", wrap(typeMetaField("v1", "ConfigMap"), bytesField(unknownRaw, cmRaw),
			bytesField(unknownContentEncoding, []byte("")), bytesField(unknownContentType, []byte("application/vnd.kubernetes.protobuf"))), nil, none},
		{"a field of a later version", wrap(typeMetaField("v1", "ConfigMap"), protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 5),
			bytesField(unknownRaw, cmRaw)), nil, none},
		{"type meta twice", wrap(typeMetaField("v1", "Secret"), typeMetaField("", "ConfigMap"), bytesField(unknownRaw, cmRaw)), nil, none},
		{"raw twice", wrap(typeMetaField("v1", "ConfigMap"), bytesField(unknownRaw, []byte("junk")), bytesField(unknownRaw, cmRaw)), nil, none},
		{"type meta of the wrong wire type", wrap(protowire.AppendVarint(protowire.AppendTag(nil, unknownTypeMeta, protowire.VarintType), 1)), nil, none},
		{"content type of the wrong wire type", wrap(typeMetaField("v1", "ConfigMap"), bytesField(unknownRaw, cmRaw),
			protowire.AppendVarint(protowire.AppendTag(nil, unknownContentType, protowire.VarintType), 1)), nil, none},
		{"kind of the wrong wire type", wrap(bytesField(unknownTypeMeta, protowire.AppendVarint(protowire.AppendTag(nil, typeMetaKind, protowire.VarintType), 1)),
			bytesField(unknownRaw, cmRaw)), nil, none},
		{"truncated envelope", cmBytes[:len(cmBytes)-3], nil, none},
		{"raw is not a config map", wrap(typeMetaField("v1", "ConfigMap"), bytesField(unknownRaw, []byte{0xff, 0xff})), nil, none},
		{"unregistered kind", wrap(typeMetaField("v1", "Nothing"), bytesField(unknownRaw, cmRaw)), nil, none},
		{"field number zero", wrap([]byte{0x02, 0x00}), nil, none},
		{"empty", nil, nil, none},
		{"prefix only", bytes.Clone(prefix), nil, none},
		{"not protobuf", []byte(`{"kind":"ConfigMap","apiVersion":"v1"}`), nil, none},
	}
}

type decoded struct {
	obj runtime.Object
	gvk *schema.GroupVersionKind
	err string
}

func decodeWith(d runtime.Decoder, data []byte, defaults *schema.GroupVersionKind, into runtime.Object) decoded {
	obj, gvk, err := d.Decode(data, defaults, into)
	r := decoded{obj: obj, gvk: gvk}
	if err != nil {
		r.err = err.Error()
	}
	return r
}

// TestDecodeMatchesProtobuf: whatever the body and target, the same
// object, kind and error as apimachinery's serializer.
func TestDecodeMatchesProtobuf(t *testing.T) {
	upstream := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	ours := NewSerializer(scheme.Scheme, scheme.Scheme)
	for _, tc := range decodeCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			want := decodeWith(upstream, tc.data, tc.defaults, tc.into())
			got := decodeWith(ours, tc.data, tc.defaults, tc.into())
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %#v\nwant %#v", got, want)
			}
		})
	}
}

// TestDecodeUnregisteredType: a generated type the scheme does not know
// is unmarshalled into as it is.
func TestDecodeUnregisteredType(t *testing.T) {
	empty := runtime.NewScheme()
	upstream := protobuf.NewSerializer(empty, empty)
	ours := NewSerializer(empty, empty)
	data := encode(t, configMap())
	want := decodeWith(upstream, data, nil, &corev1.ConfigMap{})
	got := decodeWith(ours, data, nil, &corev1.ConfigMap{})
	if want.err != "" || !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}

// TestDecodeDoesNotKeepTheBuffer: the decoded object shares no memory with
// the body, so a caller may reuse it.
func TestDecodeDoesNotKeepTheBuffer(t *testing.T) {
	data := encode(t, configMap())
	obj, _, err := NewSerializer(scheme.Scheme, scheme.Scheme).Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 0
	}
	if got, want := obj.(*corev1.ConfigMap), configMap(); !reflect.DeepEqual(got.Data, want.Data) ||
		!reflect.DeepEqual(got.BinaryData, want.BinaryData) || !reflect.DeepEqual(got.ManagedFields, want.ManagedFields) {
		t.Errorf("the decoded object changed with the buffer: %#v", got)
	}
}

// TestDecodeAllocatesLess: the point of the package, the envelope's copy
// of the payload is gone.
func TestDecodeAllocatesLess(t *testing.T) {
	data := encode(t, configMap())
	upstream := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	ours := NewSerializer(scheme.Scheme, scheme.Scheme)
	bytesPerDecode := func(d runtime.Decoder) uint64 {
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := d.Decode(data, nil, &corev1.ConfigMap{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		return uint64(res.AllocedBytesPerOp())
	}
	want, got := bytesPerDecode(upstream), bytesPerDecode(ours)
	if got+uint64(len(data))/2 > want {
		t.Errorf("a decode allocates %d bytes, apimachinery's %d: the payload (%d bytes) is still copied", got, want, len(data))
	}
}

func BenchmarkDecodeConfigMap(b *testing.B) {
	cm := configMap()
	cm.Data["x"] = strings.Repeat("y", 1024)
	data := encode(b, cm)
	for _, d := range []struct {
		name string
		dec  runtime.Decoder
	}{
		{"apimachinery", protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)},
		{"pbdecode", NewSerializer(scheme.Scheme, scheme.Scheme)},
	} {
		b.Run(d.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := d.dec.Decode(data, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzDecode: on any body, both decoders agree.
func FuzzDecode(f *testing.F) {
	for _, tc := range decodeCases(f) {
		f.Add(tc.data)
	}
	upstream := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	ours := NewSerializer(scheme.Scheme, scheme.Scheme)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, into := range []func() runtime.Object{
			func() runtime.Object { return nil },
			func() runtime.Object { return &corev1.ConfigMap{} },
		} {
			want := decodeWith(upstream, data, &configMapGVK, into())
			got := decodeWith(ours, data, &configMapGVK, into())
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %#v\nwant %#v", got, want)
			}
		}
	})
}
