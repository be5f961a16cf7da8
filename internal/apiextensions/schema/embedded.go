package schema

import (
	"encoding/json"
	"strings"

	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateEmbedded checks the apiVersion, kind and metadata of objects
// nested in x-kubernetes-embedded-resource fields. The resource root itself
// is the registry's business (its TypeMeta and ObjectMeta rules).
func validateEmbedded(pth *field.Path, x any, s *Structural) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		if s.XEmbeddedResource {
			errs = append(errs, validateEmbeddedResource(pth, x)...)
		}
		for k, v := range x {
			if prop, ok := s.Properties[k]; ok {
				errs = append(errs, validateEmbedded(pth.Child(k), v, prop)...)
			} else if s.AdditionalProperties != nil {
				errs = append(errs, validateEmbedded(pth.Key(k), v, s.AdditionalProperties.Structural)...)
			}
		}
	case []any:
		for i, v := range x {
			errs = append(errs, validateEmbedded(pth.Index(i), v, s.Items)...)
		}
	}
	return errs
}

func validateEmbeddedResource(pth *field.Path, x map[string]any) field.ErrorList {
	var errs field.ErrorList
	if _, ok := x["apiVersion"]; !ok {
		errs = append(errs, field.Required(pth.Child("apiVersion"), ""))
	}
	if _, ok := x["kind"]; !ok {
		errs = append(errs, field.Required(pth.Child("kind"), ""))
	}
	if v, ok := x["apiVersion"]; ok {
		apiVersion, isString := v.(string)
		switch {
		case !isString:
			errs = append(errs, field.Invalid(pth.Child("apiVersion"), v, "must be a string"))
		case apiVersion == "":
			errs = append(errs, field.Invalid(pth.Child("apiVersion"), apiVersion, "must not be empty"))
		default:
			if _, err := schema.ParseGroupVersion(apiVersion); err != nil {
				errs = append(errs, field.Invalid(pth.Child("apiVersion"), apiVersion, err.Error()))
			}
		}
	}
	if v, ok := x["kind"]; ok {
		kind, isString := v.(string)
		switch {
		case !isString:
			errs = append(errs, field.Invalid(pth.Child("kind"), v, "must be a string"))
		case kind == "":
			errs = append(errs, field.Invalid(pth.Child("kind"), kind, "must not be empty"))
		default:
			if msgs := utilvalidation.IsDNS1035Label(strings.ToLower(kind)); len(msgs) > 0 {
				errs = append(errs, field.Invalid(pth.Child("kind"), kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
			}
		}
	}
	if v, ok := x["metadata"]; ok {
		errs = append(errs, validateEmbeddedMetadata(pth.Child("metadata"), v)...)
	}
	return errs
}

func validateEmbeddedMetadata(pth *field.Path, v any) field.ErrorList {
	raw, err := json.Marshal(v)
	if err != nil {
		return field.ErrorList{field.Invalid(pth, v, err.Error())}
	}
	meta := &metav1.ObjectMeta{}
	if err := json.Unmarshal(raw, meta); err != nil {
		return field.ErrorList{field.Invalid(pth, v, err.Error())}
	}
	// An embedded object may omit its name; validation requires one.
	if meta.Name == "" {
		meta.Name = "fakename"
	}
	return metavalidation.ValidateObjectMeta(meta, meta.Namespace != "", path.ValidatePathSegmentName, pth)
}
