package registrytest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

var update = flag.Bool("update", false, "rewrite the golden files of registry tests")

// Fixed values the golden files show instead of what the server generated.
const (
	GoldenUID             = types.UID("00000000-0000-0000-0000-000000000001")
	GoldenResourceVersion = "1"
)

// GoldenTime is the creationTimestamp golden files show.
var GoldenTime = metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))

// Golden creates the object of dir/<name>.input.yaml through storage, the
// way a request would (decoded in the version its apiVersion names, so
// that version's defaults apply, then converted to the storage's kind),
// and compares what was stored with dir/<name>.golden.json, .yaml and .pb,
// encoded in the storage's version. uid, creationTimestamp and
// resourceVersion are replaced by fixed values. Run the test with -update
// to write the golden files. It returns the created object.
func Golden(t *testing.T, scheme *runtime.Scheme, storage rest.Creater, dir, name string) runtime.Object {
	t.Helper()
	input, err := os.ReadFile(filepath.Join(dir, name+".input.yaml"))
	if err != nil {
		t.Fatalf("reading input: %v", err)
	}
	codecs := serializer.NewCodecFactory(scheme)
	into := storage.New()
	kinds, _, err := scheme.ObjectKinds(into)
	if err != nil {
		t.Fatalf("kind of %T: %v", into, err)
	}
	gv := kinds[0].GroupVersion()
	obj, _, err := codecs.UniversalDecoder(gv).Decode(input, nil, into)
	if err != nil {
		t.Fatalf("decoding %s.input.yaml: %v", name, err)
	}
	// A body in another version than the storage's gets the storage
	// version's defaults after conversion, as the handlers do.
	scheme.Default(obj)
	accessor, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	created, err := storage.Create(NamespaceContext(accessor.GetNamespace()), obj, rest.ValidateAllObjectFunc, &metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	normalized := created.DeepCopyObject()
	m, _ := meta.Accessor(normalized)
	m.SetUID(GoldenUID)
	m.SetCreationTimestamp(GoldenTime)
	m.SetResourceVersion(GoldenResourceVersion)

	formats := []struct {
		ext        string
		serializer runtime.Serializer
	}{
		{"json", json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Pretty: true})},
		{"yaml", json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{Yaml: true})},
		{"pb", protobuf.NewSerializer(scheme, scheme)},
	}
	for _, f := range formats {
		var buf bytes.Buffer
		if err := codecs.EncoderForVersion(f.serializer, gv).Encode(normalized, &buf); err != nil {
			t.Fatalf("encoding %s as %s: %v", name, f.ext, err)
		}
		CompareGolden(t, filepath.Join(dir, name+".golden."+f.ext), buf.Bytes())
	}
	return created
}

// CompareGolden compares got with the file at path, or writes it there
// when the test runs with -update.
func CompareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update after checking the change):\n got:\n%s\nwant:\n%s", path, got, want)
	}
}
