package schema

import "k8s.io/apimachinery/pkg/runtime"

// Default applies the schema's defaults to obj in place: a property missing
// from an object that exists gets its default (a null counts as missing
// unless the property is nullable), as do null array items and null
// additionalProperties values. Set values are never overridden.
func Default(obj map[string]any, s *Structural) {
	applyDefaults(obj, s)
}

func applyDefaults(x any, s *Structural) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, prop := range s.Properties {
			if prop.Default == nil {
				continue
			}
			if v, ok := x[k]; !ok || nonNullableNull(v, prop) {
				x[k] = runtime.DeepCopyJSONValue(prop.Default)
			}
		}
		for k, v := range x {
			if prop, ok := s.Properties[k]; ok {
				applyDefaults(v, prop)
				continue
			}
			if s.AdditionalProperties == nil || s.AdditionalProperties.Structural == nil {
				continue
			}
			ap := s.AdditionalProperties.Structural
			if nonNullableNull(v, ap) && ap.Default != nil {
				x[k] = runtime.DeepCopyJSONValue(ap.Default)
			}
			applyDefaults(x[k], ap)
		}
	case []any:
		for i := range x {
			if nonNullableNull(x[i], s.Items) && s.Items.Default != nil {
				x[i] = runtime.DeepCopyJSONValue(s.Items.Default)
			}
			applyDefaults(x[i], s.Items)
		}
	}
}

func nonNullableNull(v any, s *Structural) bool {
	return v == nil && s != nil && !s.Nullable
}
