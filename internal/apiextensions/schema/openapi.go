package schema

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// ObjectMetaRef is the OpenAPI v3 reference of ObjectMeta that published
// custom resource schemas point their metadata at.
const ObjectMetaRef = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

// Descriptions upstream gives apiVersion and kind of embedded resources.
const (
	embeddedAPIVersionDoc = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	embeddedKindDoc       = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// ToOpenAPI returns the version's schema as published in OpenAPI v3 and
// used by the server-side apply type converter: value validations kept,
// int-or-string unfolded to anyOf, and the root and embedded resources
// decorated with apiVersion, kind and metadata. A missing or
// non-structural schema publishes as a bare object, as upstream does.
func ToOpenAPI(s *apiextv1.JSONSchemaProps) (*spec.Schema, error) {
	if s == nil {
		return objectSchema(), nil
	}
	if _, errs := NewStructural(s, nil); len(errs) > 0 {
		return objectSchema(), nil
	}
	out, err := toSpecSchema(s)
	if err != nil {
		return nil, err
	}
	walkSpec(out, unfoldIntOrString)
	walkSpec(out, addEmbeddedProperties)

	typeMeta := metav1.TypeMeta{}.SwaggerDoc()
	out.SetProperty("metadata", *spec.RefSchema(ObjectMetaRef).WithDescription(metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]))
	out.SetProperty("apiVersion", *spec.StringProperty().WithDescription(typeMeta["apiVersion"]))
	out.SetProperty("kind", *spec.StringProperty().WithDescription(typeMeta["kind"]))
	return out, nil
}

func objectSchema() *spec.Schema {
	return &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"object"}}}
}

// intOrStringAnyOf is the OpenAPI spelling of x-kubernetes-int-or-string.
func intOrStringAnyOf() []spec.Schema {
	return []spec.Schema{
		{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"integer"}}},
		{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{"string"}}},
	}
}

func isSpecIntOrStringAnyOf(l []spec.Schema) bool {
	return len(l) == 2 && len(l[0].Type) == 1 && l[0].Type[0] == "integer" &&
		len(l[1].Type) == 1 && l[1].Type[0] == "string"
}

// unfoldIntOrString makes x-kubernetes-int-or-string explicit for clients
// that do not know the extension, keeping any anyOf the author wrote.
func unfoldIntOrString(x *spec.Schema) {
	if b, ok := x.Extensions.GetBool("x-kubernetes-int-or-string"); !ok || !b {
		return
	}
	x.Type = nil
	switch {
	case len(x.AnyOf) == 0:
		x.AnyOf = intOrStringAnyOf()
	case isSpecIntOrStringAnyOf(x.AnyOf):
	case len(x.AllOf) > 0 && isSpecIntOrStringAnyOf(x.AllOf[0].AnyOf):
	default:
		x.AllOf = append([]spec.Schema{{SchemaProps: spec.SchemaProps{AnyOf: intOrStringAnyOf()}}}, x.AllOf...)
	}
}

// addEmbeddedProperties publishes the type and object meta an embedded
// resource carries implicitly.
func addEmbeddedProperties(x *spec.Schema) {
	if b, ok := x.Extensions.GetBool("x-kubernetes-embedded-resource"); !ok || !b {
		return
	}
	x.SetProperty("apiVersion", *spec.StringProperty().WithDescription(embeddedAPIVersionDoc))
	x.SetProperty("kind", *spec.StringProperty().WithDescription(embeddedKindDoc))
	x.SetProperty("metadata", *spec.RefSchema(ObjectMetaRef).WithDescription(metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]))
	for _, req := range []string{"kind", "apiVersion"} {
		if !slices.Contains(x.Required, req) {
			x.Required = append(x.Required, req)
		}
	}
}
