package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// validateExtensions checks the x-kubernetes-* extensions of one node:
// list and map types, list-map keys and the preserve-unknown-fields flag.
func validateExtensions(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path, opts *options) field.ErrorList {
	var allErrs field.ErrorList
	if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
	}
	allErrs = append(allErrs, requireType(s, fldPath, s.XMapType != nil, "object", "must be object if x-kubernetes-map-type is specified")...)
	if s.XMapType != nil && *s.XMapType != "atomic" && *s.XMapType != "granular" {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("x-kubernetes-map-type"), *s.XMapType, []string{"atomic", "granular"}))
	}
	if s.XListType != nil && s.Type != "array" {
		allErrs = append(allErrs, requireType(s, fldPath, true, "array", "must be array if x-kubernetes-list-type is specified")...)
	} else if opts.requireAtomicSetType && isSet(s) && s.Items != nil && s.Items.Schema != nil {
		allErrs = append(allErrs, validateSetItems(s.Items.Schema, fldPath.Child("items"))...)
	}
	if s.XListType != nil && *s.XListType != "atomic" && *s.XListType != "set" && *s.XListType != "map" {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("x-kubernetes-list-type"), *s.XListType, []string{"atomic", "set", "map"}))
	}
	if len(s.XListMapKeys) > 0 {
		if s.XListType == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if *s.XListType != "map" {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("x-kubernetes-list-type"), *s.XListType, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}
	if s.XListType != nil && *s.XListType == "map" {
		allErrs = append(allErrs, validateListMap(s, fldPath)...)
	}
	if opts.requireMapListKeysMapSetValidation {
		allErrs = append(allErrs, validateMapListKeysMapSet(s, fldPath)...)
	}
	return allErrs
}

// requireType reports a missing or different type when cond holds.
func requireType(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path, cond bool, want, msg string) field.ErrorList {
	switch {
	case !cond || s.Type == want:
		return nil
	case s.Type == "":
		return field.ErrorList{field.Required(fldPath.Child("type"), msg)}
	default:
		return field.ErrorList{field.Invalid(fldPath.Child("type"), s.Type, msg)}
	}
}

func isSet(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.XListType != nil && *s.XListType == "set"
}

// validateSetItems requires set items to be atomic: sets compare whole
// items, so items cannot be merged field by field.
func validateSetItems(items *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	const msg = "must be atomic as item of a list with x-kubernetes-list-type=set"
	switch items.Type {
	case "array":
		if items.XListType != nil && *items.XListType != "atomic" {
			return field.ErrorList{field.Invalid(fldPath.Child("x-kubernetes-list-type"), items.XListType, msg)}
		}
	case "object":
		if items.XMapType == nil || *items.XMapType != "atomic" {
			// Upstream reports the list type as the value here.
			return field.ErrorList{field.Invalid(fldPath.Child("x-kubernetes-map-type"), items.XListType, msg)}
		}
	}
	return nil
}

func validateListMap(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(s.XListMapKeys) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
	}
	if s.Items == nil {
		return append(allErrs, field.Required(fldPath.Child("items"), "must have a schema if x-kubernetes-list-type is map"))
	}
	if s.Items.Schema == nil {
		return append(allErrs, field.Invalid(fldPath.Child("items"), s.Items, "must only have a single schema if x-kubernetes-list-type is map"))
	}
	items := s.Items.Schema
	if items.Type != "object" {
		return append(allErrs, field.Invalid(fldPath.Child("items").Child("type"), items.Type, "must be object if parent array's x-kubernetes-list-type is map"))
	}
	seen := map[string]bool{}
	for _, k := range s.XListMapKeys {
		if prop, ok := items.Properties[k]; ok {
			if prop.Type == "array" || prop.Type == "object" {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("items").Child("properties").Key(k).Child("type"), items.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
			}
		} else {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("x-kubernetes-list-map-keys"), s.XListMapKeys, "entries must all be names of item properties"))
		}
		if seen[k] {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("x-kubernetes-list-map-keys"), s.XListMapKeys, "must not contain duplicate entries"))
		}
		seen[k] = true
	}
	return allErrs
}

// validateMapListKeysMapSet forbids nullable set and map items and
// requires every list-map key to be required or defaulted, so each item
// has an identity.
func validateMapListKeysMapSet(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	if s.Items == nil || s.Items.Schema == nil || s.XListType == nil || (*s.XListType != "set" && *s.XListType != "map") {
		return nil
	}
	var allErrs field.ErrorList
	items := s.Items.Schema
	if items.Nullable {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("items").Child("nullable"), "cannot be nullable when x-kubernetes-list-type is "+*s.XListType))
	}
	if *s.XListType != "map" {
		return allErrs
	}
	required := map[string]bool{}
	for _, r := range items.Required {
		required[r] = true
	}
	for _, k := range s.XListMapKeys {
		prop, ok := items.Properties[k]
		if !ok {
			continue
		}
		path := fldPath.Child("items").Child("properties").Key(k)
		if !required[k] && prop.Default == nil {
			allErrs = append(allErrs, field.Required(path.Child("default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
		}
		if prop.Nullable {
			allErrs = append(allErrs, field.Forbidden(path.Child("nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
		}
	}
	return allErrs
}

func hasNonAtomicSetType(s *apiextensionsv1.JSONSchemaProps) bool {
	return isSet(s) && s.Items != nil && s.Items.Schema != nil && len(validateSetItems(s.Items.Schema, field.NewPath(""))) > 0
}

func hasInvalidMapListKeysMapSet(s *apiextensionsv1.JSONSchemaProps) bool {
	return len(validateMapListKeysMapSet(s, field.NewPath(""))) > 0
}
