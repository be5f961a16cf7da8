package kvstore

import (
	"bytes"
	"io"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// TestEncodeIsTheCodecsEncoding: the stored bytes are the codec's, for the
// protobuf storage codec and a JSON one.
func TestEncodeIsTheCodecsEncoding(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "b"}, Data: map[string]string{"k": "v"}}
	codecs := serializer.NewCodecFactory(clientgoscheme.Scheme)
	for _, mediaType := range []string{runtime.ContentTypeProtobuf, runtime.ContentTypeJSON} {
		info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mediaType)
		codec := codecs.CodecForVersions(info.Serializer, info.Serializer, corev1.SchemeGroupVersion, corev1.SchemeGroupVersion)
		want, err := runtime.Encode(codec, cm)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encode(codec, cm)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: encode = %q, want %q", mediaType, got, want)
		}
	}
	if _, ok := any(protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme)).(runtime.EncoderWithAllocator); !ok {
		t.Fatal("the protobuf serializer no longer takes an allocator: encode copies again")
	}
}

// scriptedEncoder writes "0123456789" as its script says.
type scriptedEncoder struct {
	script    func(w io.Writer, buf []byte) error
	allocated []byte
}

func (e *scriptedEncoder) Encode(_ runtime.Object, w io.Writer) error {
	_, err := w.Write([]byte("0123456789"))
	return err
}

func (e *scriptedEncoder) Identifier() runtime.Identifier { return "scripted" }

func (e *scriptedEncoder) EncodeWithAllocator(_ runtime.Object, w io.Writer, a runtime.MemoryAllocator) error {
	e.allocated = a.Allocate(10)
	return e.script(w, e.allocated)
}

func TestEncodeKeepsOnlyItsOwnSingleWrite(t *testing.T) {
	write := func(w io.Writer, p []byte) error { _, err := w.Write(p); return err }
	tests := []struct {
		name     string
		script   func(w io.Writer, buf []byte) error
		wantKept bool
	}{
		{name: "one write of the allocated buffer", wantKept: true, script: func(w io.Writer, buf []byte) error {
			copy(buf, "0123456789")
			return write(w, buf)
		}},
		{name: "the allocated buffer written in two pieces, reused in between", script: func(w io.Writer, buf []byte) error {
			copy(buf, "01234")
			if err := write(w, buf[:5]); err != nil {
				return err
			}
			copy(buf, "56789")
			return write(w, buf[:5])
		}},
		{name: "the allocated buffer written twice whole, scribbled on after the first", script: func(w io.Writer, buf []byte) error {
			copy(buf, "0123456789")
			if err := write(w, buf[:0]); err != nil {
				return err
			}
			if err := write(w, buf); err != nil {
				return err
			}
			copy(buf, "XXXXXXXXXX")
			return nil
		}},
		{name: "a buffer of its own, reused after the write", script: func(w io.Writer, _ []byte) error {
			pooled := []byte("0123456789")
			err := write(w, pooled)
			copy(pooled, "XXXXXXXXXX")
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := &scriptedEncoder{script: tt.script}
			got, err := encode(enc, &corev1.ConfigMap{})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "0123456789" {
				t.Errorf("encode = %q, want %q", got, "0123456789")
			}
			kept := len(got) > 0 && unsafe.SliceData(got) == unsafe.SliceData(enc.allocated)
			if kept != tt.wantKept {
				t.Errorf("kept the allocated buffer: %v, want %v", kept, tt.wantKept)
			}
		})
	}
}
