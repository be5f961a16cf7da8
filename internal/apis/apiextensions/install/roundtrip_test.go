package install

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/yaml"
)

const crdYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wg], categories: [all]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            x-kubernetes-validations:
            - {rule: "self.size > 0", message: "size must be positive"}
            properties:
              size: {type: integer, minimum: 1, default: 3}
              color: {type: string, enum: ["red", "blue"]}
              tags: {type: array, items: {type: string}, x-kubernetes-list-type: set}
              labels: {type: object, additionalProperties: {type: string}}
              closed: {type: object, additionalProperties: false}
              anything: {x-kubernetes-preserve-unknown-fields: true}
              port: {x-kubernetes-int-or-string: true}
status:
  acceptedNames: {plural: "", kind: ""}
  storedVersions: [v1]
`

// TestRoundTrip reads a CRD written as users write them and checks that
// JSON and protobuf (through the scheme's codecs, as storage and clients
// use them) give it back unchanged.
func TestRoundTrip(t *testing.T) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict([]byte(crdYAML), &crd); err != nil {
		t.Fatal(err)
	}
	props := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties
	if props["labels"].AdditionalProperties.Schema.Type != "string" || props["closed"].AdditionalProperties.Allows {
		t.Errorf("additionalProperties not read: %+v %+v", props["labels"].AdditionalProperties, props["closed"].AdditionalProperties)
	}
	if props["tags"].Items.Schema.Type != "string" || string(props["size"].Default.Raw) != "3" || len(props["color"].Enum) != 2 {
		t.Errorf("items/default/enum not read: %+v", props)
	}
	copied := crd.DeepCopy()
	if diff := cmp.Diff(&crd, copied); diff != "" {
		t.Errorf("DeepCopy differs:\n%s", diff)
	}
	a, _ := json.Marshal(&crd)
	var again apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(a, &again); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(&again)
	if string(a) != string(b) {
		t.Errorf("JSON round trip changed:\n%s\n%s", a, b)
	}
	scheme := runtime.NewScheme()
	if err := Install(scheme); err != nil {
		t.Fatal(err)
	}
	codecs := serializer.NewCodecFactory(scheme)
	// Decoding defaults, so the object read back is the defaulted one.
	want := crd.DeepCopy()
	scheme.Default(want)
	for _, mediaType := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf, runtime.ContentTypeYAML} {
		info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), mediaType)
		if !ok {
			t.Fatalf("no serializer for %s", mediaType)
		}
		codec := codecs.CodecForVersions(info.Serializer, codecs.UniversalDecoder(apiextensionsv1.SchemeGroupVersion), apiextensionsv1.SchemeGroupVersion, apiextensionsv1.SchemeGroupVersion)
		data, err := runtime.Encode(codec, &crd)
		if err != nil {
			t.Fatalf("%s: encode: %v", mediaType, err)
		}
		obj, err := runtime.Decode(codec, data)
		if err != nil {
			t.Fatalf("%s: decode: %v", mediaType, err)
		}
		got := obj.(*apiextensionsv1.CustomResourceDefinition)
		got.TypeMeta = crd.TypeMeta
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s round trip differs (-want +got):\n%s", mediaType, diff)
		}
	}
}
