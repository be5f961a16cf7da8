package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// field is the markers of one struct field; it mirrors markers.Field so
// the generator does not depend on the table it writes.
type field struct {
	ListType           string
	ListMapKeys        []string
	MapType            string
	StructType         string
	Optional, Required bool
	Default            string
}

func (f field) empty() bool {
	return f.ListType == "" && len(f.ListMapKeys) == 0 && f.MapType == "" &&
		f.StructType == "" && !f.Optional && !f.Required && f.Default == ""
}

// allowed lists the values a marker may take; a marker absent here takes
// any value (listMapKey, default) or none (optional, required).
var allowed = map[string][]string{
	"listType":   {"atomic", "set", "map"},
	"mapType":    {"atomic", "granular"},
	"structType": {"atomic", "granular"},
}

// isMarker reports whether a comment line is one of the markers recorded
// here, in either spelling. Lines such as
// "+k8s:alpha(since: ...)=+k8s:required" are gated validation rules, not
// markers of the field, and do not match.
func isMarker(line string) bool {
	key, _, _ := splitMarker(line)
	switch key {
	case "listType", "listMapKey", "mapType", "structType", "optional", "required", "default":
		return true
	}
	return false
}

// splitMarker splits "+k8s:listType=map" into ("listType", "map", true);
// the k8s: spelling is reported with the same key as the plain one.
func splitMarker(line string) (key, value string, k8s bool) {
	line = strings.TrimSpace(line)
	body, ok := strings.CutPrefix(line, "+")
	if !ok {
		return "", "", false
	}
	body, k8s = strings.CutPrefix(body, "k8s:")
	key, value, _ = strings.Cut(body, "=")
	return key, strings.TrimSpace(value), k8s
}

// parseMarkers reads the markers of one comment (its lines without the
// comment delimiters). Both spellings may be given for the same thing, as
// k8s.io/api does while moving to +k8s: markers; they must then agree.
func parseMarkers(lines []string) (field, error) {
	var f field
	var plainKeys, k8sKeys []string
	for _, line := range lines {
		if !isMarker(line) {
			continue
		}
		key, value, k8s := splitMarker(line)
		var err error
		switch key {
		case "listType":
			err = setOnce(&f.ListType, key, value)
		case "mapType":
			err = setOnce(&f.MapType, key, value)
		case "structType":
			err = setOnce(&f.StructType, key, value)
		case "default":
			if value == "" {
				err = fmt.Errorf("+default needs a value")
			} else if !isRef(value) && !json.Valid([]byte(value)) {
				err = fmt.Errorf("+default=%s is not JSON", value)
			} else {
				err = setOnce(&f.Default, key, value)
			}
		case "listMapKey":
			switch {
			case value == "":
				err = fmt.Errorf("+listMapKey needs a value")
			case k8s:
				k8sKeys = append(k8sKeys, value)
			default:
				plainKeys = append(plainKeys, value)
			}
		case "optional", "required":
			if value != "" {
				err = fmt.Errorf("+%s takes no value, got %q", key, value)
			} else if key == "optional" {
				f.Optional = true
			} else {
				f.Required = true
			}
		}
		if err != nil {
			return field{}, err
		}
	}
	switch {
	case len(plainKeys) > 0 && len(k8sKeys) > 0 && !slices.Equal(plainKeys, k8sKeys):
		return field{}, fmt.Errorf("+listMapKey %v and +k8s:listMapKey %v disagree", plainKeys, k8sKeys)
	case len(plainKeys) > 0:
		f.ListMapKeys = plainKeys
	default:
		f.ListMapKeys = k8sKeys
	}
	if f.Optional && f.Required {
		return field{}, fmt.Errorf("both +optional and +required")
	}
	return f, nil
}

// setOnce sets a single-valued marker, checking its value; a repeat must
// say the same thing.
func setOnce(dst *string, key, value string) error {
	if values, ok := allowed[key]; ok && !slices.Contains(values, value) {
		return fmt.Errorf("+%s=%s: want one of %s", key, value, strings.Join(values, ", "))
	}
	if *dst != "" && *dst != value {
		return fmt.Errorf("conflicting +%s: %s and %s", key, *dst, value)
	}
	*dst = value
	return nil
}

// isRef reports whether a default names a constant, ref(Ident), which the
// package parser resolves to the constant's value.
func isRef(value string) bool {
	return strings.HasPrefix(value, "ref(") && strings.HasSuffix(value, ")")
}
