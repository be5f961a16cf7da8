package schema

import (
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"sigs.k8s.io/yaml"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func mustSchema(t testing.TB, y string) *apiextv1.JSONSchemaProps {
	t.Helper()
	s := &apiextv1.JSONSchemaProps{}
	if err := yaml.Unmarshal([]byte(y), s); err != nil {
		t.Fatalf("schema: %v", err)
	}
	return s
}

func mustObject(t testing.TB, y string) map[string]any {
	t.Helper()
	// Decode as unstructured objects are: integers become int64.
	j, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatalf("object: %v", err)
	}
	obj := map[string]any{}
	if err := utiljson.Unmarshal(j, &obj); err != nil {
		t.Fatalf("object: %v", err)
	}
	return obj
}

func mustStructural(t testing.TB, y string) *Structural {
	t.Helper()
	ss, errs := NewStructural(mustSchema(t, y), nil)
	if len(errs) > 0 {
		t.Fatalf("NewStructural: %v", errs)
	}
	return ss
}

func errStrings[T interface{ Error() string }](errs []T) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
