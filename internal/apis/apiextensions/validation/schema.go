package validation

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// openAPIV3Types are the JSON types a schema may name, sorted.
var openAPIV3Types = []string{"array", "boolean", "integer", "number", "object", "string"}

// allowedAtRootWithStatus are the schema fields allowed at the root when
// the status subresource is on: the status schema is taken from
// properties["status"], so nothing else may constrain it.
var allowedAtRootWithStatus = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum", "ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required", "Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

var metaFields = map[string]bool{"metadata": true, "kind": true, "apiVersion": true}

var supportedValidationReasons = []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"}

// schemaContext is what a schema node's checks depend on from above.
type schemaContext struct {
	allowDefaults          bool
	disallowDefaultsReason string
	insideResourceMeta     bool
	opts                   *options
}

func (c schemaContext) withForbiddenDefaults(reason string) schemaContext {
	c.allowDefaults, c.disallowDefaultsReason = false, reason
	return c
}

// validateValidation checks one schema: the root rules, then every node.
func validateValidation(v *apiextensionsv1.CustomResourceValidation, statusEnabled bool, opts options, fldPath *field.Path) field.ErrorList {
	if v == nil || v.OpenAPIV3Schema == nil {
		return nil
	}
	schema := v.OpenAPIV3Schema
	var allErrs field.ErrorList
	if statusEnabled {
		allErrs = append(allErrs, validateRootWithStatus(schema, fldPath)...)
	}
	if schema.Nullable {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("openAPIV3Schema.nullable"), "nullable cannot be true at the root"))
	}
	// The root must describe an object (upstream checks this with the
	// structural rules; it is repeated here as the CRD cannot work
	// otherwise).
	switch {
	case schema.Type == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("openAPIV3Schema", "type"), "must not be empty at the root"))
	case schema.Type != "object":
		allErrs = append(allErrs, field.Invalid(fldPath.Child("openAPIV3Schema", "type"), schema.Type, "must be object at the root"))
	}
	ctx := schemaContext{allowDefaults: true, opts: &opts}
	allErrs = append(allErrs, validateSchema(schema, fldPath.Child("openAPIV3Schema"), ctx, true)...)
	return append(allErrs, validateCELRules(schema, fldPath.Child("openAPIV3Schema"))...)
}

func validateRootWithStatus(schema *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	v := reflect.ValueOf(schema).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).IsZero() {
			continue
		}
		name := v.Type().Field(i).Name
		if name == "Type" {
			if schema.Type != "object" {
				return field.ErrorList{field.Invalid(fldPath.Child("openAPIV3Schema.type"), schema.Type, `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)}
			}
			continue
		}
		if !contains(allowedAtRootWithStatus, name) {
			return field.ErrorList{field.Invalid(fldPath.Child("openAPIV3Schema"), "", fmt.Sprintf("only %v fields are allowed at the root of the schema if the status subresource is enabled", allowedAtRootWithStatus))}
		}
	}
	return nil
}

// validateSchema checks a node and, recursively, its children.
func validateSchema(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path, ctx schemaContext, isRoot bool) field.ErrorList {
	if s == nil {
		return nil
	}
	allErrs := validateNode(s, fldPath, ctx)
	if s.UniqueItems {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if s.AdditionalProperties != nil {
		// properties describe structs, additionalProperties maps; both
		// would contradict ignoring unknown fields.
		if len(s.Properties) != 0 && (!s.AdditionalProperties.Allows || s.AdditionalProperties.Schema != nil) {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
		}
		sub := ctx
		if ctx.insideResourceMeta {
			sub = ctx.withForbiddenDefaults("inside additionalProperties applying to object metadata")
		}
		allErrs = append(allErrs, validateSchema(s.AdditionalProperties.Schema, fldPath.Child("additionalProperties"), sub, false)...)
	}
	for _, name := range sortedKeys(s.Properties) {
		prop := s.Properties[name]
		sub := ctx
		if (isRoot || s.XEmbeddedResource) && metaFields[name] {
			sub.insideResourceMeta = true
			if isRoot {
				sub = sub.withForbiddenDefaults("in top-level " + name)
			}
		}
		allErrs = append(allErrs, validateSchema(&prop, fldPath.Child("properties").Key(name), sub, false)...)
	}
	allErrs = append(allErrs, validateSchema(s.Not, fldPath.Child("not"), ctx, false)...)
	for _, group := range []struct {
		name    string
		schemas []apiextensionsv1.JSONSchemaProps
	}{{"allOf", s.AllOf}, {"oneOf", s.OneOf}, {"anyOf", s.AnyOf}} {
		for i := range group.schemas {
			allErrs = append(allErrs, validateSchema(&group.schemas[i], fldPath.Child(group.name).Index(i), ctx, false)...)
		}
	}
	for _, name := range sortedKeys(s.Definitions) {
		def := s.Definitions[name]
		allErrs = append(allErrs, validateSchema(&def, fldPath.Child("definitions").Key(name), ctx, false)...)
	}
	if s.Items != nil {
		allErrs = append(allErrs, validateSchema(s.Items.Schema, fldPath.Child("items"), ctx, false)...)
		for i := range s.Items.JSONSchemas {
			allErrs = append(allErrs, validateSchema(&s.Items.JSONSchemas[i], fldPath.Child("items").Index(i), ctx, false)...)
		}
	}
	for _, name := range sortedKeys(s.Dependencies) {
		allErrs = append(allErrs, validateSchema(s.Dependencies[name].Schema, fldPath.Child("dependencies").Key(name), ctx, false)...)
	}
	allErrs = append(allErrs, validateExtensions(s, fldPath, ctx.opts)...)
	return append(allErrs, validateRules(s, fldPath)...)
}

// validateNode checks what OpenAPI v3 allows in one node, without its
// children.
func validateNode(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path, ctx schemaContext) field.ErrorList {
	var allErrs field.ErrorList
	if ctx.opts.requireValidPropertyType && s.Type != "" && !contains(openAPIV3Types, s.Type) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), s.Type, openAPIV3Types))
	}
	if s.Default != nil && !ctx.allowDefaults {
		detail := "must not be set"
		if ctx.disallowDefaultsReason != "" {
			detail += " " + ctx.disallowDefaultsReason
		}
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("default"), detail))
	}
	unsupported := []struct {
		set  bool
		name string
	}{
		{s.ID != "", "id"},
		{s.AdditionalItems != nil, "additionalItems"},
		{len(s.PatternProperties) != 0, "patternProperties"},
		{len(s.Definitions) != 0, "definitions"},
		{s.Dependencies != nil, "dependencies"},
		{s.Ref != nil, "$ref"},
	}
	for _, u := range unsupported {
		if u.set {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(u.name), u.name+" is not supported"))
		}
	}
	if s.Type == "null" {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("type"), "type cannot be set to null, use nullable as an alternative"))
	}
	if s.Items != nil && len(s.Items.JSONSchemas) != 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("items"), "items must be a schema object and not an array"))
	}
	if ctx.insideResourceMeta && s.XEmbeddedResource {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("x-kubernetes-embedded-resource"), "must not be used inside of resource meta"))
	}
	return allErrs
}

// validateRules checks the static shape of x-kubernetes-validations; the
// CEL expressions themselves are compiled elsewhere.
func validateRules(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, rule := range s.XValidations {
		path := fldPath.Child("x-kubernetes-validations").Index(i)
		trimmedRule := strings.TrimSpace(rule.Rule)
		trimmedMsg := strings.TrimSpace(rule.Message)
		switch {
		case trimmedRule == "":
			allErrs = append(allErrs, field.Required(path.Child("rule"), "rule is not specified"))
		case rule.Message != "" && trimmedMsg == "":
			allErrs = append(allErrs, field.Invalid(path.Child("message"), rule.Message, "must be non-empty if specified"))
		case hasNewlines(trimmedMsg):
			allErrs = append(allErrs, field.Invalid(path.Child("message"), rule.Message, "must not contain line breaks"))
		case hasNewlines(trimmedRule) && trimmedMsg == "":
			allErrs = append(allErrs, field.Required(path.Child("message"), "message must be specified if rule contains line breaks"))
		}
		if rule.MessageExpression != "" && strings.TrimSpace(rule.MessageExpression) == "" {
			allErrs = append(allErrs, field.Required(path.Child("messageExpression"), "messageExpression must be non-empty if specified"))
		}
		if rule.Reason != nil && !contains(supportedValidationReasons, string(*rule.Reason)) {
			allErrs = append(allErrs, field.NotSupported(path.Child("reason"), *rule.Reason, supportedValidationReasons))
		}
		if rule.FieldPath != "" && strings.TrimSpace(rule.FieldPath) == "" {
			allErrs = append(allErrs, field.Invalid(path.Child("fieldPath"), rule.FieldPath, "must be non-empty if specified"))
		}
		if hasNewlines(rule.FieldPath) {
			allErrs = append(allErrs, field.Invalid(path.Child("fieldPath"), rule.FieldPath, "must not contain line breaks"))
		}
	}
	return allErrs
}

func hasNewlines(s string) bool { return strings.ContainsAny(s, "\n\r") }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// schemaHas says whether pred holds for s or any schema inside it.
func schemaHas(s *apiextensionsv1.JSONSchemaProps, pred func(*apiextensionsv1.JSONSchemaProps) bool) bool {
	if s == nil {
		return false
	}
	if pred(s) {
		return true
	}
	if s.Items != nil {
		if schemaHas(s.Items.Schema, pred) {
			return true
		}
		for i := range s.Items.JSONSchemas {
			if schemaHas(&s.Items.JSONSchemas[i], pred) {
				return true
			}
		}
	}
	for _, list := range [][]apiextensionsv1.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			if schemaHas(&list[i], pred) {
				return true
			}
		}
	}
	if schemaHas(s.Not, pred) {
		return true
	}
	for _, m := range []map[string]apiextensionsv1.JSONSchemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for _, sub := range m {
			if schemaHas(&sub, pred) {
				return true
			}
		}
	}
	for _, or := range []*apiextensionsv1.JSONSchemaPropsOrBool{s.AdditionalProperties, s.AdditionalItems} {
		if or != nil && schemaHas(or.Schema, pred) {
			return true
		}
	}
	for _, d := range s.Dependencies {
		if schemaHas(d.Schema, pred) {
			return true
		}
	}
	return false
}

func hasInvalidType(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.Type != "" && !contains(openAPIV3Types, s.Type)
}
