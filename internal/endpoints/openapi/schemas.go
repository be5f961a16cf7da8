package openapi

import (
	"encoding/json"
	"maps"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The v2 document carries no defaults, as upstream prunes them: old
// clients (kubectl's validation among them) know nothing of default and
// the document is large enough without. withoutDefaults copies, leaving
// the builder's cached schemas untouched.
func withoutDefaults(s spec.Schema) spec.Schema {
	s.Default = nil
	s.Properties = mapWithoutDefaults(s.Properties)
	s.PatternProperties = mapWithoutDefaults(s.PatternProperties)
	s.Definitions = mapWithoutDefaults(s.Definitions)
	s.AllOf = sliceWithoutDefaults(s.AllOf)
	s.AnyOf = sliceWithoutDefaults(s.AnyOf)
	s.OneOf = sliceWithoutDefaults(s.OneOf)
	s.Not = ptrWithoutDefaults(s.Not)
	if s.Items != nil {
		s.Items = &spec.SchemaOrArray{Schema: ptrWithoutDefaults(s.Items.Schema), Schemas: sliceWithoutDefaults(s.Items.Schemas)}
	}
	if s.AdditionalProperties != nil {
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: s.AdditionalProperties.Allows, Schema: ptrWithoutDefaults(s.AdditionalProperties.Schema)}
	}
	if s.AdditionalItems != nil {
		s.AdditionalItems = &spec.SchemaOrBool{Allows: s.AdditionalItems.Allows, Schema: ptrWithoutDefaults(s.AdditionalItems.Schema)}
	}
	if s.Dependencies != nil {
		deps := make(spec.Dependencies, len(s.Dependencies))
		for k, d := range s.Dependencies {
			deps[k] = spec.SchemaOrStringArray{Schema: ptrWithoutDefaults(d.Schema), Property: d.Property}
		}
		s.Dependencies = deps
	}
	return s
}

func mapWithoutDefaults[M ~map[string]spec.Schema](m M) M {
	if m == nil {
		return nil
	}
	out := make(M, len(m))
	for k, v := range m {
		out[k] = withoutDefaults(v)
	}
	return out
}

func sliceWithoutDefaults(in []spec.Schema) []spec.Schema {
	if in == nil {
		return nil
	}
	out := make([]spec.Schema, len(in))
	for i, v := range in {
		out[i] = withoutDefaults(v)
	}
	return out
}

func ptrWithoutDefaults(s *spec.Schema) *spec.Schema {
	if s == nil {
		return nil
	}
	out := withoutDefaults(*s)
	return &out
}

const extensionGVK = "x-kubernetes-group-version-kind"

// crossRegistered are the meta kinds every group version registers
// (metav1.AddToGroupVersion), whose definitions list one kind per group
// version of the scheme.
var crossRegistered = [...]string{
	"io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
	"io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
}

// scopeGVKs narrows, in one group version's v3 document, the kinds of
// the cross-registered meta types to that group version and core v1, as
// upstream does: otherwise each document repeats some sixty kinds per
// type. Schemas are replaced, not changed: the builder shares them.
func scopeGVKs(schemas map[string]*spec.Schema, group, version string) {
	for _, name := range crossRegistered {
		s, ok := schemas[name]
		if !ok || s == nil {
			continue
		}
		ext, ok := s.Extensions[extensionGVK]
		if !ok {
			continue
		}
		// The builder's value may be typed or generic; its JSON form is
		// what the document says.
		raw, err := json.Marshal(ext)
		if err != nil {
			continue
		}
		var gvks []map[string]any
		if err := json.Unmarshal(raw, &gvks); err != nil || len(gvks) <= 1 {
			continue
		}
		var kept []any
		for _, gvk := range gvks {
			g, _ := gvk["group"].(string)
			v, _ := gvk["version"].(string)
			if (g == group && v == version) || (g == "" && v == "v1") {
				kept = append(kept, gvk)
			}
		}
		scoped := *s
		scoped.Extensions = maps.Clone(s.Extensions)
		if len(kept) == 0 {
			delete(scoped.Extensions, extensionGVK)
		} else {
			scoped.Extensions[extensionGVK] = kept
		}
		schemas[name] = &scoped
	}
}
