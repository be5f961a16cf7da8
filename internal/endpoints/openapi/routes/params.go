package routes

import (
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The parameters every resource shares, described once. Query
// parameters come from the options types, as upstream's installer reads
// them: each top-level field with a JSON name, described by the type's
// SwaggerDoc, so a new option in apimachinery shows up by itself.
var (
	prettyParam = param{name: "pretty", in: "query", typ: "string",
		description: "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget)."}
	namespaceParam = param{name: "namespace", in: "path", typ: "string", required: true,
		description: "object name and auth scope, such as for teams and projects"}
	subpathParam = param{name: "path", in: "path", typ: "string", required: true,
		description: "path to the resource"}

	listParams   = queryParams(reflect.TypeFor[metav1.ListOptions]())
	createParams = queryParams(reflect.TypeFor[metav1.CreateOptions]())
	updateParams = queryParams(reflect.TypeFor[metav1.UpdateOptions]())
	patchParams  = queryParams(reflect.TypeFor[metav1.PatchOptions]())
	deleteParams = queryParams(reflect.TypeFor[metav1.DeleteOptions]())
	// deletecollection selects with the list options, but cannot watch.
	deleteCollectionParams = concat(deleteParams,
		queryParams(reflect.TypeFor[metav1.ListOptions](), "watch", "allowWatchBookmarks"))
)

// nameParam is the {name} path parameter, described with the kind of
// the (sub)resource's own objects, as upstream ("name of the Scale").
func nameParam(kind string) param {
	return param{name: "name", in: "path", typ: "string", required: true, description: "name of the " + kind}
}

// swaggerDoc is implemented by the API types: their field docs by JSON
// name.
type swaggerDoc interface{ SwaggerDoc() map[string]string }

// queryParams lists the query parameters of an options struct type: its
// top-level scalar fields (and slices of scalars, which repeat), by JSON
// name, except those excluded. A nil type has none.
func queryParams(t reflect.Type, exclude ...string) []param {
	if t == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var docs map[string]string
	if d, ok := reflect.New(t).Interface().(swaggerDoc); ok {
		docs = d.SwaggerDoc()
	}
	var out []param
	for i := range t.NumField() {
		f := t.Field(i)
		jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if jsonName == "" || jsonName == "-" || slices.Contains(exclude, jsonName) {
			continue
		}
		typ := queryType(f.Type)
		if typ == "" {
			continue
		}
		out = append(out, param{name: jsonName, in: "query", typ: typ, description: docs[jsonName]})
	}
	return out
}

// queryType is the JSON type of a query parameter of Go type t, or ""
// for a field that is no query parameter. Structs are not, times
// included: upstream leaves PodLogOptions' sinceTime out too.
func queryType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice:
		// A repeated parameter is described by its element's type.
		if e := t.Elem(); e.Kind() != reflect.Slice {
			return queryType(e)
		}
	}
	return ""
}

// concat returns a new slice of the parameters of lists, so shared
// parameter lists are never appended to in place.
func concat(lists ...[]param) []param {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	out := make([]param, 0, n)
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
