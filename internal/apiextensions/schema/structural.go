package schema

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Structural is the structural form of a version's schema: every specified
// field has a type, there is no $ref, and value validations (enum, pattern,
// allOf, ...) are kept out of it; they live in the Validator. It carries what
// pruning, defaulting and list-type checks need.
type Structural struct {
	Type        string
	Format      string
	Description string
	Title       string
	Nullable    bool
	// Default is the decoded default value; nil when there is none.
	Default any

	Items                *Structural
	Properties           map[string]*Structural
	AdditionalProperties *StructuralOrBool

	XPreserveUnknownFields bool
	XEmbeddedResource      bool
	XIntOrString           bool
	XListType              string
	XListMapKeys           []string
	XMapType               string
	// XValidations are CEL rules (evaluated by internal/apiextensions/cel).
	XValidations apiextv1.ValidationRules

	// MaxItems, MaxLength and MaxProperties bound the size of a value;
	// the CEL cost estimates need them (nil: unbounded).
	MaxItems, MaxLength, MaxProperties *int64
}

// StructuralOrBool is additionalProperties: a schema, or a bare boolean.
type StructuralOrBool struct {
	Structural *Structural
	Bool       bool
}

// NewStructural converts an openAPIV3Schema to its structural form. The
// ErrorList gives the reasons the schema is not structural, with upstream's
// paths and messages relative to fldPath, sorted. The returned Structural is
// non-nil for a non-nil schema even when there are errors (best effort).
func NewStructural(s *apiextv1.JSONSchemaProps, fldPath *field.Path) (*Structural, field.ErrorList) {
	if s == nil {
		return nil, nil
	}
	var errs field.ErrorList
	ss := toStructural(s, fldPath, &errs)
	errs = append(errs, validateStructural(s, ss, fldPath)...)
	sortErrors(errs)
	return ss, errs
}

// toStructural copies the structure of s, reporting fields a structural
// schema does not support.
func toStructural(s *apiextv1.JSONSchemaProps, fldPath *field.Path, errs *field.ErrorList) *Structural {
	*errs = append(*errs, unsupportedFields(s, fldPath)...)
	ss := &Structural{
		Type:              s.Type,
		Format:            s.Format,
		Description:       s.Description,
		Title:             s.Title,
		Nullable:          s.Nullable,
		XEmbeddedResource: s.XEmbeddedResource,
		XIntOrString:      s.XIntOrString,
		XListMapKeys:      s.XListMapKeys,
		XValidations:      s.XValidations,
		MaxItems:          s.MaxItems,
		MaxLength:         s.MaxLength,
		MaxProperties:     s.MaxProperties,
	}
	if s.Default != nil && len(s.Default.Raw) > 0 {
		var v any
		if err := json.Unmarshal(s.Default.Raw, &v); err != nil {
			*errs = append(*errs, field.Invalid(fldPath.Child("default"), string(s.Default.Raw), err.Error()))
		}
		ss.Default = v
	}
	if s.XListType != nil {
		ss.XListType = *s.XListType
	}
	if s.XMapType != nil {
		ss.XMapType = *s.XMapType
	}
	if s.XPreserveUnknownFields != nil {
		if !*s.XPreserveUnknownFields {
			*errs = append(*errs, field.Invalid(fldPath.Child("x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
		}
		ss.XPreserveUnknownFields = *s.XPreserveUnknownFields
	}
	if s.Items != nil {
		if len(s.Items.JSONSchemas) > 0 {
			*errs = append(*errs, field.Forbidden(fldPath.Child("items"), "items must be a schema object and not an array"))
		}
		if s.Items.Schema != nil {
			ss.Items = toStructural(s.Items.Schema, fldPath.Child("items"), errs)
		}
	}
	if len(s.Properties) > 0 {
		ss.Properties = make(map[string]*Structural, len(s.Properties))
		for k := range s.Properties {
			p := s.Properties[k]
			ss.Properties[k] = toStructural(&p, fldPath.Child("properties").Key(k), errs)
		}
	}
	if s.AdditionalProperties != nil {
		ap := &StructuralOrBool{Bool: s.AdditionalProperties.Allows}
		if s.AdditionalProperties.Schema != nil {
			ap.Bool = true
			ap.Structural = toStructural(s.AdditionalProperties.Schema, fldPath.Child("additionalProperties"), errs)
		}
		ss.AdditionalProperties = ap
	}
	return ss
}

// unsupportedFields reports the JSON-Schema features CRDs do not support,
// with the messages of upstream's CRD validation.
func unsupportedFields(s *apiextv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.ID != "" {
		errs = append(errs, field.Forbidden(fldPath.Child("id"), "id is not supported"))
	}
	if s.Schema != "" {
		errs = append(errs, field.Forbidden(fldPath.Child("$schema"), "$schema is not supported"))
	}
	if s.AdditionalItems != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("additionalItems"), "additionalItems is not supported"))
	}
	if len(s.PatternProperties) != 0 {
		errs = append(errs, field.Forbidden(fldPath.Child("patternProperties"), "patternProperties is not supported"))
	}
	if len(s.Definitions) != 0 {
		errs = append(errs, field.Forbidden(fldPath.Child("definitions"), "definitions is not supported"))
	}
	if s.Dependencies != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("dependencies"), "dependencies is not supported"))
	}
	if s.Ref != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("$ref"), "$ref is not supported"))
	}
	if s.Type == "null" {
		errs = append(errs, field.Forbidden(fldPath.Child("type"), "type cannot be set to null, use nullable as an alternative"))
	}
	return errs
}
