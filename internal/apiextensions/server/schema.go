package server

import (
	"context"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// SchemaCompiler builds the schema machinery of one CRD version; the
// integrator backs it with internal/apiextensions/schema (NewStructural,
// NewValidator, Prune, Default, ToOpenAPI). It is an interface so this
// package does not wait on that one and tests can stub it.
type SchemaCompiler interface {
	Compile(s *apiextv1.JSONSchemaProps) (VersionSchema, error)
}

// VersionSchema is the compiled schema of one version, built once per
// CRD version and shared by its requests.
type VersionSchema interface {
	// Validate returns the schema errors of the whole object: the
	// OpenAPI value validations, then the CEL rules. old is the stored
	// object on update (for transition rules on oldSelf), nil on create.
	Validate(ctx context.Context, obj, old map[string]any) field.ErrorList
	// Prune drops unknown fields (metadata's too) and returns their paths
	// sorted, upstream style ("spec.foo", "metadata.foo").
	Prune(obj map[string]any) []string
	// Default applies the schema's defaults in place.
	Default(obj map[string]any)
	// OpenAPI is the version's schema for the OpenAPI documents.
	OpenAPI() (*spec.Schema, error)
}

// noSchema is used without a SchemaCompiler: everything is kept and
// valid, as for x-kubernetes-preserve-unknown-fields at the root.
type noSchema struct{}

func (noSchema) Validate(context.Context, map[string]any, map[string]any) field.ErrorList {
	return nil
}
func (noSchema) Prune(map[string]any) []string { return nil }
func (noSchema) Default(map[string]any)        {}
func (noSchema) OpenAPI() (*spec.Schema, error) {
	s := &spec.Schema{}
	s.Type = spec.StringOrArray{"object"}
	s.AddExtension("x-kubernetes-preserve-unknown-fields", true)
	return s, nil
}
