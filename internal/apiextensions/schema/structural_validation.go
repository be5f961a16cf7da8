package schema

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// level says where a schema sits; the empty-type message depends on it.
type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// validateStructural checks the structural invariants and that every value
// validation only speaks about fields the structure specifies.
func validateStructural(s *apiextv1.JSONSchemaProps, ss *Structural, fldPath *field.Path) field.ErrorList {
	errs := structuralInvariants(s, ss, rootLevel, fldPath)
	errs = append(errs, completeness(s, ss, fldPath, fldPath)...)
	return errs
}

func sortErrors(errs field.ErrorList) {
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
}

func structuralInvariants(s *apiextv1.JSONSchemaProps, ss *Structural, lvl level, fldPath *field.Path) field.ErrorList {
	if s == nil || ss == nil {
		return nil
	}
	var errs field.ErrorList
	if ss.Type == "array" && ss.Items == nil {
		errs = append(errs, field.Required(fldPath.Child("items"), "must be specified"))
	}
	if s.Items != nil && s.Items.Schema != nil {
		errs = append(errs, structuralInvariants(s.Items.Schema, ss.Items, itemLevel, fldPath.Child("items"))...)
	}
	for k := range s.Properties {
		p := s.Properties[k]
		errs = append(errs, structuralInvariants(&p, ss.Properties[k], fieldLevel, fldPath.Child("properties").Key(k))...)
	}
	if ss.AdditionalProperties != nil {
		if lvl == rootLevel {
			errs = append(errs, field.Forbidden(fldPath.Child("additionalProperties"), "must not be used at the root"))
		}
		if ss.AdditionalProperties.Structural != nil {
			errs = append(errs, structuralInvariants(s.AdditionalProperties.Schema, ss.AdditionalProperties.Structural, fieldLevel, fldPath.Child("additionalProperties"))...)
		}
	}
	errs = append(errs, extensionConflicts(ss, fldPath)...)
	errs = append(errs, valueValidations(s, isIntOrStringAnyOf(s.AnyOf), len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf), fldPath)...)
	errs = append(errs, typeInvariants(ss, lvl, fldPath)...)

	checkMetadata := lvl == rootLevel || ss.XEmbeddedResource
	for _, name := range []string{"kind", "apiVersion"} {
		if p, ok := ss.Properties[name]; ok && checkMetadata && p.Type != "string" {
			errs = append(errs, field.Invalid(fldPath.Child("properties").Key(name).Child("type"), p.Type, "must be string"))
		}
	}
	if md, ok := s.Properties["metadata"]; ok {
		errs = append(errs, metadataInvariants(&md, checkMetadata, lvl, fldPath.Child("properties").Key("metadata"))...)
	}
	if ss.XEmbeddedResource && !ss.XPreserveUnknownFields && len(ss.Properties) == 0 {
		errs = append(errs, field.Required(fldPath.Child("properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
	return errs
}

func typeInvariants(ss *Structural, lvl level, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case ss.XEmbeddedResource && ss.Type != "object":
		if ss.Type == "" {
			errs = append(errs, field.Required(fldPath.Child("type"), "must be object if x-kubernetes-embedded-resource is true"))
		} else {
			errs = append(errs, field.Invalid(fldPath.Child("type"), ss.Type, "must be object if x-kubernetes-embedded-resource is true"))
		}
	case ss.Type == "" && !ss.XIntOrString && !ss.XPreserveUnknownFields:
		msg := map[level]string{
			rootLevel:  "must not be empty at the root",
			itemLevel:  "must not be empty for specified array items",
			fieldLevel: "must not be empty for specified object fields",
		}[lvl]
		errs = append(errs, field.Required(fldPath.Child("type"), msg))
	}
	if ss.XEmbeddedResource && ss.AdditionalProperties != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && ss.Type != "" && ss.Type != "object" {
		errs = append(errs, field.Invalid(fldPath.Child("type"), ss.Type, "must be object at the root"))
	}
	return errs
}

func extensionConflicts(ss *Structural, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ss.XIntOrString && ss.XPreserveUnknownFields {
		errs = append(errs, field.Invalid(fldPath.Child("x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if ss.XIntOrString && ss.XEmbeddedResource {
		errs = append(errs, field.Invalid(fldPath.Child("x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	return errs
}

// metadataInvariants: at the root only name and generateName may be
// constrained, because the server owns the rest of ObjectMeta.
func metadataInvariants(md *apiextv1.JSONSchemaProps, checkMetadata bool, lvl level, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if checkMetadata && md.Type != "object" {
		errs = append(errs, field.Invalid(fldPath.Child("type"), md.Type, "must be object"))
	}
	if lvl != rootLevel {
		return errs
	}
	rest := *md
	_, hasName := rest.Properties["name"]
	_, hasGenerateName := rest.Properties["generateName"]
	n := 0
	if hasName {
		n++
	}
	if hasGenerateName {
		n++
	}
	if n > 0 && len(rest.Properties) == n {
		rest.Properties = nil
	}
	rest.Type = ""
	rest.Default = nil
	if !reflect.DeepEqual(rest, apiextv1.JSONSchemaProps{}) {
		errs = append(errs, field.Forbidden(fldPath, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
	}
	return errs
}

// isIntOrStringAnyOf recognises anyOf: [{type: integer}, {type: string}],
// the legacy spelling of x-kubernetes-int-or-string, allowed with types.
func isIntOrStringAnyOf(anyOf []apiextv1.JSONSchemaProps) bool {
	return len(anyOf) == 2 &&
		reflect.DeepEqual(anyOf[0], apiextv1.JSONSchemaProps{Type: "integer"}) &&
		reflect.DeepEqual(anyOf[1], apiextv1.JSONSchemaProps{Type: "string"})
}

// valueValidations walks the logical junctors of s; their clauses must not
// carry structure (types, defaults, extensions...).
func valueValidations(s *apiextv1.JSONSchemaProps, skipAnyOf, skipFirstAllOfAnyOf bool, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !skipAnyOf {
		for i := range s.AnyOf {
			errs = append(errs, nestedValueValidation(&s.AnyOf[i], false, false, fldPath.Child("anyOf").Index(i))...)
		}
	}
	for i := range s.AllOf {
		errs = append(errs, nestedValueValidation(&s.AllOf[i], skipFirstAllOfAnyOf && i == 0, false, fldPath.Child("allOf").Index(i))...)
	}
	for i := range s.OneOf {
		errs = append(errs, nestedValueValidation(&s.OneOf[i], false, false, fldPath.Child("oneOf").Index(i))...)
	}
	if s.Not != nil {
		errs = append(errs, nestedValueValidation(s.Not, false, false, fldPath.Child("not"))...)
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			errs = append(errs, field.Invalid(fldPath.Child("pattern"), s.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		}
	}
	return errs
}

func nestedValueValidation(v *apiextv1.JSONSchemaProps, skipAnyOf, skipAllOfAnyOf bool, fldPath *field.Path) field.ErrorList {
	errs := unsupportedFields(v, fldPath)
	errs = append(errs, valueValidations(v, skipAnyOf, skipAllOfAnyOf, fldPath)...)
	if v.Items != nil && v.Items.Schema != nil {
		errs = append(errs, nestedValueValidation(v.Items.Schema, false, false, fldPath.Child("items"))...)
	}
	for k := range v.Properties {
		p := v.Properties[k]
		errs = append(errs, nestedValueValidation(&p, false, false, fldPath.Child("properties").Key(k))...)
	}
	forbid := func(name string, set bool, msg string) {
		if set {
			errs = append(errs, field.Forbidden(fldPath.Child(name), msg))
		}
	}
	const empty, undefined, isFalse = "must be empty to be structural", "must be undefined to be structural", "must be false to be structural"
	forbid("type", v.Type != "", empty)
	forbid("additionalProperties", v.AdditionalProperties != nil, undefined)
	forbid("default", v.Default != nil, undefined)
	forbid("title", v.Title != "", empty)
	forbid("description", v.Description != "", empty)
	forbid("nullable", v.Nullable, isFalse)
	forbid("x-kubernetes-preserve-unknown-fields", v.XPreserveUnknownFields != nil && *v.XPreserveUnknownFields, isFalse)
	forbid("x-kubernetes-embedded-resource", v.XEmbeddedResource, isFalse)
	forbid("x-kubernetes-int-or-string", v.XIntOrString, isFalse)
	forbid("x-kubernetes-list-map-keys", len(v.XListMapKeys) > 0, empty)
	forbid("x-kubernetes-list-type", v.XListType != nil, undefined)
	forbid("x-kubernetes-map-type", v.XMapType != nil, undefined)
	forbid("x-kubernetes-validations", len(v.XValidations) > 0, empty)
	if _, ok := v.Properties["metadata"]; ok {
		errs = append(errs, field.Forbidden(fldPath.Child("properties").Key("metadata"), "must not be specified in a nested context"))
	}
	return errs
}

// completeness checks that each property and items a junctor clause
// mentions is also specified in the structure (sPath) beside it.
func completeness(v *apiextv1.JSONSchemaProps, ss *Structural, sPath, vPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	clause := func(c *apiextv1.JSONSchemaProps, p *field.Path) {
		errs = append(errs, nestedCompleteness(c, ss, sPath, p)...)
	}
	if v.Not != nil {
		clause(v.Not, vPath.Child("not"))
	}
	for i := range v.AllOf {
		clause(&v.AllOf[i], vPath.Child("allOf").Index(i))
	}
	for i := range v.AnyOf {
		clause(&v.AnyOf[i], vPath.Child("anyOf").Index(i))
	}
	for i := range v.OneOf {
		clause(&v.OneOf[i], vPath.Child("oneOf").Index(i))
	}
	return errs
}

func nestedCompleteness(v *apiextv1.JSONSchemaProps, ss *Structural, sPath, vPath *field.Path) field.ErrorList {
	if ss == nil {
		return field.ErrorList{field.Required(sPath, fmt.Sprintf("because it is defined in %s", vPath.String()))}
	}
	errs := completeness(v, ss, sPath, vPath)
	if v.Items != nil && v.Items.Schema != nil {
		errs = append(errs, nestedCompleteness(v.Items.Schema, ss.Items, sPath.Child("items"), vPath.Child("items"))...)
	}
	for k := range v.Properties {
		p := v.Properties[k]
		sp, ok := ss.Properties[k]
		if !ok {
			errs = append(errs, field.Required(sPath.Child("properties").Key(k), fmt.Sprintf("because it is defined in %s", vPath.Child("properties").Key(k))))
			continue
		}
		errs = append(errs, nestedCompleteness(&p, sp, sPath.Child("properties").Key(k), vPath.Child("properties").Key(k))...)
	}
	return errs
}
