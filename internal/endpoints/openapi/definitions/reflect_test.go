package definitions_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/markers"
)

// Types exercising the reflection rules, with fake markers below.
type (
	widget struct {
		metav1.TypeMeta `json:",inline"`
		embedded        `json:",inline"`
		Name            string            `json:"name"`
		Skipped         string            `json:"-"`
		hidden          string            // unexported: not on the wire
		Count           int64             `json:"count,string"`
		Raw             []byte            `json:"raw"`
		Small           int8              `json:"small,omitempty"`
		Ratio           float64           `json:"ratio,omitempty"`
		On              bool              `json:"on"`
		Sizes           map[string]int32  `json:"sizes,omitempty"`
		Parts           []part            `json:"parts,omitempty" patchStrategy:"merge" patchMergeKey:"id"`
		Ptr             *part             `json:"ptr,omitempty"`
		Nested          [][]string        `json:"nested,omitempty"`
		Mode            string            `json:"mode,omitempty"`
		Must            string            `json:"must,omitempty"`
		Maybe           string            `json:"maybe"`
		Labels          map[string]string `json:"labels,omitempty"`
		Untagged        string
	}
	embedded struct {
		Inner string `json:"inner"`
	}
	part struct {
		ID string `json:"id"`
	}
)

func (widget) SwaggerDoc() map[string]string {
	return map[string]string{"": "A widget.", "name": "Its name."}
}

var fakeMarkers = map[string]markers.Type{
	definitions.Name(reflect.TypeFor[widget]()): {Fields: map[string]markers.Field{
		"parts":  {ListType: "map", ListMapKeys: []string{"id"}},
		"mode":   {Default: `"Auto"`},
		"must":   {Required: true},
		"maybe":  {Optional: true},
		"labels": {MapType: "atomic"},
	}},
	definitions.Name(reflect.TypeFor[part]()): {StructType: "atomic"},
}

func TestReflectionRules(t *testing.T) {
	b := definitions.NewBuilder(runtime.NewScheme())
	definitions.SetMarkers(b, func(name string) (markers.Type, bool) {
		m, ok := fakeMarkers[name]
		return m, ok
	})
	widgetName := definitions.Name(reflect.TypeFor[widget]())
	partName := definitions.Name(reflect.TypeFor[part]())
	v3 := toJSON(t, b.V3(reflect.TypeFor[*widget]()))
	v2 := toJSON(t, b.V2(reflect.TypeFor[widget]()))

	want := `{
		"description": "A widget.",
		"type": "object",
		"required": ["inner", "name", "count", "raw", "on", "must", "Untagged"],
		"properties": {
			"apiVersion": {"description": ` + mustJSON(t, metav1.TypeMeta{}.SwaggerDoc()["apiVersion"]) + `, "type": "string"},
			"kind": {"description": ` + mustJSON(t, metav1.TypeMeta{}.SwaggerDoc()["kind"]) + `, "type": "string"},
			"inner": {"type": "string", "default": ""},
			"name": {"description": "Its name.", "type": "string", "default": ""},
			"count": {"type": "string"},
			"raw": {"type": "string", "format": "byte"},
			"small": {"type": "integer", "format": "byte"},
			"ratio": {"type": "number", "format": "double"},
			"on": {"type": "boolean", "default": false},
			"sizes": {"type": "object", "additionalProperties": {"type": "integer", "format": "int32", "default": 0}},
			"parts": {
				"type": "array",
				"items": {"allOf": [{"$ref": "#/components/schemas/` + partName + `"}], "default": {}},
				"x-kubernetes-patch-strategy": "merge",
				"x-kubernetes-patch-merge-key": "id",
				"x-kubernetes-list-type": "map",
				"x-kubernetes-list-map-keys": ["id"]
			},
			"ptr": {"$ref": "#/components/schemas/` + partName + `"},
			"nested": {"type": "array", "items": {"type": "array", "items": {"type": "string", "default": ""}}},
			"mode": {"type": "string", "default": "Auto"},
			"must": {"type": "string"},
			"maybe": {"type": "string", "default": ""},
			"labels": {"type": "object", "additionalProperties": {"type": "string", "default": ""}, "x-kubernetes-map-type": "atomic"},
			"Untagged": {"type": "string", "default": ""}
		}
	}`
	check(t, "v3 widget", want, v3.(map[string]any)[widgetName])
	check(t, "v3 part", `{"type":"object","required":["id"],"properties":{"id":{"type":"string","default":""}},"x-kubernetes-map-type":"atomic"}`, v3.(map[string]any)[partName])
	check(t, "v2 parts", `{
		"type": "array",
		"items": {"$ref": "#/definitions/`+partName+`"},
		"x-kubernetes-patch-strategy": "merge",
		"x-kubernetes-patch-merge-key": "id",
		"x-kubernetes-list-type": "map",
		"x-kubernetes-list-map-keys": ["id"]
	}`, v2.(map[string]any)[widgetName].(map[string]any)["properties"].(map[string]any)["parts"])
	if n := len(v3.(map[string]any)); n != 2 {
		t.Errorf("v3 has %d definitions, want widget and part (TypeMeta and the embedded struct are inlined)", n)
	}
}

func check(t *testing.T, what, wantJSON string, got any) {
	t.Helper()
	var want any
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}
