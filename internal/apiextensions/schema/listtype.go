package schema

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateListTypes reports duplicates in x-kubernetes-list-type set and
// map lists, recursing through the object.
func validateListTypes(pth *field.Path, s *Structural, x any) field.ErrorList {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			if prop, ok := s.Properties[k]; ok {
				errs = append(errs, validateListTypes(pth.Child(k), prop, v)...)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
				errs = append(errs, validateListTypes(pth.Key(k), s.AdditionalProperties.Structural, v)...)
			}
		}
	case []any:
		switch s.XListType {
		case "set":
			dups, err := duplicates(pth, x)
			if err != nil {
				errs = append(errs, err)
			}
			for _, i := range dups {
				errs = append(errs, field.Duplicate(pth.Index(i), x[i]))
			}
		case "map":
			errs = append(errs, validateListMap(pth, s, x)...)
		}
		for i := range x {
			errs = append(errs, validateListTypes(pth.Index(i), s.Items, x[i])...)
		}
	}
	return errs
}

// duplicates returns the index of the second occurrence of each value seen
// more than once; compound values compare by their JSON.
func duplicates(pth *field.Path, l []any) ([]int, *field.Error) {
	if len(l) <= 1 {
		return nil, nil
	}
	seenScalars := make(map[any]int, len(l))
	seenCompounds := make(map[string]int)
	var dups []int
	for i, x := range l {
		var n int
		switch x.(type) {
		case map[string]any, []any:
			b, err := json.Marshal(x)
			if err != nil {
				return nil, field.Invalid(pth.Index(i), x, "internal error")
			}
			seenCompounds[string(b)]++
			n = seenCompounds[string(b)]
		default:
			seenScalars[x]++
			n = seenScalars[x]
		}
		if n == 2 {
			dups = append(dups, i)
		}
	}
	return dups, nil
}

// missingKey marks a list-map entry without its key field.
type missingKey struct{}

func validateListMap(pth *field.Path, s *Structural, l []any) field.ErrorList {
	for i, x := range l {
		if _, ok := x.(map[string]any); x != nil && !ok {
			return field.ErrorList{field.Invalid(pth.Index(i), x, "must be an object for an array of list-type map")}
		}
	}
	if len(l) <= 1 {
		return nil
	}
	keys := make([]any, 0, len(l))
	if len(s.XListMapKeys) == 1 {
		name := s.XListMapKeys[0]
		for _, x := range l {
			m, _ := x.(map[string]any)
			if k, ok := m[name]; ok {
				keys = append(keys, k)
			} else {
				keys = append(keys, missingKey{})
			}
		}
	} else {
		for _, x := range l {
			m, _ := x.(map[string]any)
			key := map[string]any{}
			for _, name := range s.XListMapKeys {
				if k, ok := m[name]; ok {
					key[name] = k
				}
			}
			keys = append(keys, key)
		}
	}
	dups, err := duplicates(pth, keys)
	if err != nil {
		return field.ErrorList{err}
	}
	var errs field.ErrorList
	for _, i := range dups {
		switch k := keys[i].(type) {
		case missingKey:
			errs = append(errs, field.Duplicate(pth.Index(i), map[string]any{}))
		case map[string]any:
			errs = append(errs, field.Duplicate(pth.Index(i), k))
		default:
			errs = append(errs, field.Duplicate(pth.Index(i), map[string]any{s.XListMapKeys[0]: k}))
		}
	}
	return errs
}
