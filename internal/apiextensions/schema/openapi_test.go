package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToOpenAPI(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"nil-like non-structural", `{properties: {a: {}}}`, `{"type":"object"}`},
		{"decorated root, unfolded int-or-string, embedded",
			`{type: object, properties: {spec: {type: object, required: [port], properties: {
			   port: {x-kubernetes-int-or-string: true},
			   e: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}}}`,
			`{"type":"object","properties":{
			  "apiVersion":{"description":"APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources","type":"string"},
			  "kind":{"description":"Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds","type":"string"},
			  "metadata":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta","description":"Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"},
			  "spec":{"type":"object","required":["port"],"properties":{
			    "port":{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true},
			    "e":{"type":"object","required":["kind","apiVersion"],"properties":{
			      "apiVersion":{"description":"apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources","type":"string"},
			      "kind":{"description":"kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds","type":"string"},
			      "metadata":{"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta","description":"Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"}},
			      "x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ToOpenAPI(mustSchema(t, tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var gotAny, wantAny any
			if err := json.Unmarshal(raw, &gotAny); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.want), &wantAny); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantAny, gotAny); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
		})
	}
}
