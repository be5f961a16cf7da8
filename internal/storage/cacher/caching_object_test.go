package cacher

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kapi-dev/kapi/internal/storage/storagetest"
)

// countingEncoder counts the encodings its inner serializer performs, and
// asks a CacheableObject for its cached bytes like the real serializers do.
type countingEncoder struct {
	inner runtime.Encoder
	runs  atomic.Int64
}

func (e *countingEncoder) Identifier() runtime.Identifier {
	return "counting-" + e.inner.Identifier()
}

func (e *countingEncoder) Encode(obj runtime.Object, w io.Writer) error {
	if co, ok := obj.(runtime.CacheableObject); ok {
		return co.CacheEncode(e.Identifier(), e.encode, w)
	}
	return e.encode(obj, w)
}

func (e *countingEncoder) encode(obj runtime.Object, w io.Writer) error {
	e.runs.Add(1)
	return e.inner.Encode(obj, w)
}

func sharedConfigMap() *corev1.ConfigMap {
	cm := configMap("ns", "a", map[string]string{"app": "web"})
	cm.ResourceVersion = "7"
	return cm
}

// TestCachingObjectEncodesOncePerFormat encodes one wrapper from many
// goroutines through the versioning codec over JSON and protobuf (run with
// -race): every result equals a plain encoding and each format is encoded
// once.
func TestCachingObjectEncodesOncePerFormat(t *testing.T) {
	scheme := storagetest.NewScheme()
	codecs := serializer.NewCodecFactory(scheme)
	formats := map[string]runtime.Encoder{
		"json":     json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{}),
		"protobuf": protobuf.NewSerializer(scheme, scheme),
	}
	for name, inner := range formats {
		t.Run(name, func(t *testing.T) {
			counting := &countingEncoder{inner: inner}
			enc := codecs.EncoderForVersion(counting, corev1.SchemeGroupVersion)
			shared := sharedConfigMap()
			var want bytes.Buffer
			if err := enc.Encode(shared.DeepCopy(), &want); err != nil {
				t.Fatal(err)
			}
			counting.runs.Store(0)

			co, err := newCachingObject(shared)
			if err != nil {
				t.Fatal(err)
			}
			const goroutines = 50
			results := make([][]byte, goroutines)
			var wg sync.WaitGroup
			for i := range goroutines {
				wg.Go(func() {
					var buf bytes.Buffer
					if err := enc.Encode(co, &buf); err != nil {
						t.Error(err)
					}
					results[i] = buf.Bytes()
				})
			}
			wg.Wait()
			for i, got := range results {
				if !bytes.Equal(got, want.Bytes()) {
					t.Fatalf("goroutine %d encoded %q, want %q", i, got, want.Bytes())
				}
			}
			if n := counting.runs.Load(); n != 1 {
				t.Errorf("inner encoder ran %d times, want once", n)
			}
			if !shared.GetObjectKind().GroupVersionKind().Empty() {
				t.Errorf("encoding set the kind %v on the shared object", shared.GetObjectKind().GroupVersionKind())
			}
		})
	}
}

// TestCachingObjectCopyOnWrite: setters change the wrapper's own copy,
// never the shared object, and drop encodings made before.
func TestCachingObjectCopyOnWrite(t *testing.T) {
	shared := sharedConfigMap()
	co, err := newCachingObject(shared)
	if err != nil {
		t.Fatal(err)
	}
	encodes := 0
	encode := func(obj runtime.Object, w io.Writer) error {
		encodes++
		_, err := w.Write([]byte(obj.(*corev1.ConfigMap).ResourceVersion))
		return err
	}
	var buf bytes.Buffer
	if err := co.CacheEncode("id", encode, &buf); err != nil || buf.String() != "7" {
		t.Fatalf("first encoding %q, %v", buf.String(), err)
	}

	accessor, err := meta.Accessor(co)
	if err != nil {
		t.Fatalf("meta.Accessor: %v", err)
	}
	accessor.SetResourceVersion("8")
	co.GetObjectKind().SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	if shared.ResourceVersion != "7" || !shared.GroupVersionKind().Empty() {
		t.Errorf("setters changed the shared object: resourceVersion %s, kind %v", shared.ResourceVersion, shared.GroupVersionKind())
	}
	if co.GetResourceVersion() != "8" || co.GetObjectKind().GroupVersionKind().Kind != "ConfigMap" {
		t.Errorf("wrapper reads resourceVersion %s kind %v, want its own changes", co.GetResourceVersion(), co.GetObjectKind().GroupVersionKind())
	}
	buf.Reset()
	if err := co.CacheEncode("id", encode, &buf); err != nil || buf.String() != "8" || encodes != 2 {
		t.Errorf("encoding after a change = %q (%d encodes), %v; want a fresh encoding of 8", buf.String(), encodes, err)
	}

	copied := co.GetObject().(*corev1.ConfigMap)
	copied.Labels["app"] = "changed"
	if co.GetLabels()["app"] != "web" || shared.Labels["app"] != "web" {
		t.Error("GetObject did not return a deep copy")
	}
}
