package controlplane

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kapi-dev/kapi/internal/apis/install"
)

// protobufEnvelope starts every value kube-apiserver stores in protobuf.
var protobufEnvelope = []byte("k8s\x00")

// TestStorageCodec pins how values are written to etcd, as kube-apiserver
// writes them: built-in kinds in protobuf with the Kubernetes envelope,
// CustomResourceDefinitions as JSON (kube-apiserver's extensions server
// stores them through a JSON codec). Whatever a value was written as, JSON
// or protobuf, it reads back.
func TestStorageCodec(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := install.InstallAll(scheme); err != nil {
		t.Fatal(err)
	}
	g := &restOptionsGetter{scheme: scheme, codecs: serializer.NewCodecFactory(scheme)}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: new(true),
				}},
			}},
		},
	}
	tests := []struct {
		resource schema.GroupResource
		obj      runtime.Object
		wantJSON bool
	}{
		{schema.GroupResource{Resource: "configmaps"}, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "n"}, Data: map[string]string{"k": "v"}}, false},
		{schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, crd, true},
	}
	for _, tt := range tests {
		codec, err := g.codecFor(tt.resource, tt.obj)
		if err != nil {
			t.Fatalf("%s: %v", tt.resource, err)
		}
		stored, err := runtime.Encode(codec, tt.obj)
		if err != nil {
			t.Fatalf("%s: encode: %v", tt.resource, err)
		}
		if gotJSON := bytes.HasPrefix(stored, []byte("{")); gotJSON != tt.wantJSON {
			t.Errorf("%s stored as %q..., want JSON %v", tt.resource, stored[:min(len(stored), 12)], tt.wantJSON)
		}
		if !tt.wantJSON && !bytes.HasPrefix(stored, protobufEnvelope) {
			t.Errorf("%s stored without the protobuf envelope: %q...", tt.resource, stored[:min(len(stored), 12)])
		}
		// The other encoding, as another server (or an older kapi) wrote it.
		var other []byte
		if tt.wantJSON {
			other, err = runtime.Encode(g.codecs.EncoderForVersion(protobuf.NewSerializer(scheme, scheme), apiextensionsv1.SchemeGroupVersion), tt.obj)
		} else {
			info, _ := runtime.SerializerInfoForMediaType(g.codecs.SupportedMediaTypes(), runtime.ContentTypeJSON)
			other, err = runtime.Encode(g.codecs.EncoderForVersion(info.Serializer, schema.GroupVersion{Version: "v1"}), tt.obj)
		}
		if err != nil {
			t.Fatalf("%s: encode the other way: %v", tt.resource, err)
		}
		// Reading defaults, as kube-apiserver's storage decoder does.
		want := tt.obj.DeepCopyObject()
		scheme.Default(want)
		for _, data := range [][]byte{stored, other} {
			got, err := runtime.Decode(codec, data)
			if err != nil {
				t.Fatalf("%s: decode %q...: %v", tt.resource, data[:min(len(data), 12)], err)
			}
			got.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: read back differs (-want +got):\n%s", tt.resource, diff)
			}
		}
	}
}
