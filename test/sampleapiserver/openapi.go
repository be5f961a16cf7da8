package sampleapiserver

import (
	"maps"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	aggregatoropenapi "k8s.io/kube-aggregator/pkg/generated/openapi"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// OpenAPI model names of the group's types, in the reversed-domain form
// of upstream's generated ones.
const (
	flunderModel     = "com.example.wardle.v1alpha1.Flunder"
	flunderSpecModel = "com.example.wardle.v1alpha1.FlunderSpec"
	flunderListModel = "com.example.wardle.v1alpha1.FlunderList"
)

// OpenAPIModelName names Flunder in the server's OpenAPI documents.
func (Flunder) OpenAPIModelName() string { return flunderModel }

// OpenAPIModelName names FlunderSpec in the server's OpenAPI documents.
func (FlunderSpec) OpenAPIModelName() string { return flunderSpecModel }

// OpenAPIModelName names FlunderList in the server's OpenAPI documents.
func (FlunderList) OpenAPIModelName() string { return flunderListModel }

// openAPIDefinitions are what openapi-gen would write for the group's
// types, by hand, with the apimachinery definitions they refer to taken
// from a generated package (kube-aggregator's; any has them). The generic
// server needs them: server-side apply builds its type converter from
// them, and it serves /openapi/v2 and /openapi/v3 from them.
func openAPIDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	defs := map[string]common.OpenAPIDefinition{}
	maps.Copy(defs, aggregatoropenapi.GetOpenAPIDefinitions(ref))
	maps.DeleteFunc(defs, func(name string, _ common.OpenAPIDefinition) bool {
		return !strings.HasPrefix(name, "io.k8s.apimachinery.")
	})
	objectMeta, listMeta := metav1.ObjectMeta{}.OpenAPIModelName(), metav1.ListMeta{}.OpenAPIModelName()
	defs[flunderModel] = common.OpenAPIDefinition{
		Schema: object("Flunder is the server's one kind.", nil, map[string]spec.Schema{
			"apiVersion": typeMetaString("APIVersion"),
			"kind":       typeMetaString("Kind"),
			"metadata":   refTo(ref, objectMeta),
			"spec":       refTo(ref, flunderSpecModel),
		}),
		Dependencies: []string{objectMeta, flunderSpecModel},
	}
	defs[flunderSpecModel] = common.OpenAPIDefinition{
		Schema: object("FlunderSpec is what a Flunder refers to.", nil, map[string]spec.Schema{
			"reference": {SchemaProps: spec.SchemaProps{Description: "Reference names another flunder or fischer.", Type: []string{"string"}}},
		}),
	}
	defs[flunderListModel] = common.OpenAPIDefinition{
		Schema: object("FlunderList is a list of Flunders.", []string{"items"}, map[string]spec.Schema{
			"apiVersion": typeMetaString("APIVersion"),
			"kind":       typeMetaString("Kind"),
			"metadata":   refTo(ref, listMeta),
			"items": {SchemaProps: spec.SchemaProps{
				Type:  []string{"array"},
				Items: &spec.SchemaOrArray{Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Ref: ref(flunderModel)}}},
			}},
		}),
		Dependencies: []string{listMeta, flunderModel},
	}
	return defs
}

func object(description string, required []string, properties map[string]spec.Schema) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{
		Description: description,
		Type:        []string{"object"},
		Properties:  properties,
		Required:    required,
	}}
}

func typeMetaString(field string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Description: field + " of the object, as in every Kubernetes type.", Type: []string{"string"}}}
}

func refTo(ref common.ReferenceCallback, model string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Default: map[string]any{}, Ref: ref(model)}}
}
