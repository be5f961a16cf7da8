package v1

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
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

func TestRoundTrip(t *testing.T) {
	var crd CustomResourceDefinition
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
	var again CustomResourceDefinition
	if err := json.Unmarshal(a, &again); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(&again)
	if string(a) != string(b) {
		t.Errorf("JSON round trip changed:\n%s\n%s", a, b)
	}
}
