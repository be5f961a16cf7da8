package validation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Printer column types and formats, sorted as upstream lists them in its
// messages.
var (
	printerColumnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	printerColumnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ValidateCustomResourceColumnDefinition checks one printer column.
func ValidateCustomResourceColumnDefinition(col *apiextensionsv1.CustomResourceColumnDefinition, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if col.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	typesMsg := "must be one of " + strings.Join(printerColumnTypes, ",")
	switch {
	case col.Type == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), typesMsg))
	case !contains(printerColumnTypes, col.Type):
		allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), col.Type, typesMsg))
	}
	if col.Format != "" && !contains(printerColumnFormats, col.Format) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("format"), col.Format, "must be one of "+strings.Join(printerColumnFormats, ",")))
	}
	// Upstream names the field after its Go name here.
	if col.JSONPath == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("JSONPath"), ""))
	} else {
		allErrs = append(allErrs, validateSimpleJSONPath(col.JSONPath, fldPath.Child("JSONPath"))...)
	}
	return allErrs
}

// ValidateCustomResourceDefinitionSubresources checks the scale
// subresource's paths.
func ValidateCustomResourceDefinitionSubresources(sub *apiextensionsv1.CustomResourceSubresources, fldPath *field.Path) field.ErrorList {
	if sub == nil || sub.Scale == nil {
		return nil
	}
	var allErrs field.ErrorList
	scalePath := func(name, value string, prefixes []string, msg string) {
		path := fldPath.Child("scale." + name)
		if errs := validateSimpleJSONPath(value, path); len(errs) > 0 {
			allErrs = append(allErrs, errs...)
			return
		}
		for _, p := range prefixes {
			if strings.HasPrefix(value, p) {
				return
			}
		}
		allErrs = append(allErrs, field.Invalid(path, value, msg))
	}
	if sub.Scale.SpecReplicasPath == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("scale.specReplicasPath"), ""))
	} else {
		scalePath("specReplicasPath", sub.Scale.SpecReplicasPath, []string{".spec."}, "should be a json path under .spec")
	}
	if sub.Scale.StatusReplicasPath == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("scale.statusReplicasPath"), ""))
	} else {
		scalePath("statusReplicasPath", sub.Scale.StatusReplicasPath, []string{".status."}, "should be a json path under .status")
	}
	if p := sub.Scale.LabelSelectorPath; p != nil && *p != "" {
		scalePath("labelSelectorPath", *p, []string{".spec.", ".status."}, "should be a json path under either .spec or .status")
	}
	return allErrs
}

func validateSimpleJSONPath(s string, fldPath *field.Path) field.ErrorList {
	switch {
	case s == "":
		return field.ErrorList{field.Invalid(fldPath, s, "must not be empty")}
	case s[0] != '.':
		return field.ErrorList{field.Invalid(fldPath, s, "must be a simple json path starting with .")}
	}
	return nil
}

// validateSelectableFields checks that each path names a distinct string,
// boolean or integer field of schema outside metadata, and that there are
// at most MaxSelectableFields of them.
func validateSelectableFields(fields []apiextensionsv1.SelectableField, schema *apiextensionsv1.JSONSchemaProps, allowTooMany bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	unique := map[string]bool{}
	for i, f := range fields {
		path := fldPath.Index(i).Child("jsonPath")
		if f.JSONPath == "" {
			allErrs = append(allErrs, field.Required(path, ""))
			continue
		}
		segments, found, err := resolveFieldPath(f.JSONPath, schema)
		if err != nil {
			allErrs = append(allErrs, field.Invalid(path, f.JSONPath, fmt.Sprintf("is an invalid path: %v", err)))
			continue
		}
		if len(segments) > 0 && segments[0] == "metadata" {
			allErrs = append(allErrs, field.Invalid(path, f.JSONPath, "must not point to fields in metadata"))
		}
		if found == nil || (found.Type != "string" && found.Type != "boolean" && found.Type != "integer") {
			allErrs = append(allErrs, field.Invalid(path, f.JSONPath, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		key := strings.Join(segments, "\x00")
		if unique[key] {
			allErrs = append(allErrs, field.Duplicate(path, f.JSONPath))
		} else {
			unique[key] = true
		}
	}
	if len(unique) > MaxSelectableFields && !allowTooMany {
		allErrs = append(allErrs, field.TooMany(fldPath, len(unique), MaxSelectableFields))
	}
	return allErrs
}

// resolveFieldPath follows a dot-notation path (".spec.color") through
// schema's properties and maps, returning its segments and the schema it
// names. Array notation is refused, as for selectable fields upstream.
func resolveFieldPath(jsonPath string, schema *apiextensionsv1.JSONSchemaProps) ([]string, *apiextensionsv1.JSONSchemaProps, error) {
	tokens := tokenizePath(jsonPath)
	var segments []string
	for i := 0; i < len(tokens); i++ {
		switch tokens[i] {
		case "[":
			return nil, nil, fmt.Errorf("array notation is not allowed")
		case ".":
			if i+1 >= len(tokens) {
				return nil, nil, fmt.Errorf("unexpected end of JSON path")
			}
			i++
			name := tokens[i]
			switch {
			case schema == nil:
				return nil, nil, fmt.Errorf("does not refer to a valid field")
			case schema.Properties != nil:
				prop, ok := schema.Properties[name]
				if !ok {
					return nil, nil, fmt.Errorf("does not refer to a valid field")
				}
				schema = &prop
			case schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil:
				schema = schema.AdditionalProperties.Schema
			default:
				return nil, nil, fmt.Errorf("does not refer to a valid field")
			}
			segments = append(segments, name)
		default:
			return nil, nil, fmt.Errorf("expected [ or . but got: %s", tokens[i])
		}
	}
	return segments, schema, nil
}

// tokenizePath splits a path into the delimiters '.', '[' and ']' and the
// names between them.
func tokenizePath(s string) []string {
	var tokens []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', '[', ']':
			if i > start {
				tokens = append(tokens, s[start:i])
			}
			tokens = append(tokens, s[i:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		tokens = append(tokens, s[start:])
	}
	return tokens
}
