package definitions

import "reflect"

// swaggerDoccer is implemented by the k8s.io/api and meta/v1 types
// (types_swagger_doc_generated.go): "" is the type's doc, every other key
// a field's, by JSON name.
type swaggerDoccer interface{ SwaggerDoc() map[string]string }

var swaggerDoccerType = reflect.TypeFor[swaggerDoccer]()

// extraDocs are docs, in our own words, of the types that have no
// SwaggerDoc(): the ones that describe their own schema, and a few
// meta/v1 types outside types.go. "" is the type, other keys its fields.
var extraDocs = map[string]map[string]string{
	"io.k8s.apimachinery.pkg.apis.meta.v1.Time":       {"": "Time is a timestamp with second precision, encoded as an RFC 3339 string."},
	"io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime":  {"": "MicroTime is a timestamp with microsecond precision, encoded as an RFC 3339 string."},
	"io.k8s.apimachinery.pkg.apis.meta.v1.Duration":   {"": "Duration is a length of time, encoded as a Go duration string such as \"1h30m\"."},
	"io.k8s.apimachinery.pkg.api.resource.Quantity":   {"": "Quantity is a fixed-point number with an optional suffix, encoded as a string: a binary SI suffix (Ki, Mi, Gi, Ti, Pi, Ei), a decimal SI suffix (m, \"\", k, M, G, T, P, E) or a decimal exponent (e3, E6). For example \"100m\" CPU or \"128Mi\" memory."},
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"": "IntOrString holds either an int32 or a string; in JSON and YAML it is the inner value itself, so a field of this type accepts a number or a name."},
	"io.k8s.apimachinery.pkg.runtime.RawExtension":    {"": "RawExtension holds an embedded object of any kind, kept in its serialized form until it is decoded."},
	"io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent": {
		"":       "WatchEvent is one event of a watch: what happened, and to which object.",
		"type":   "Type is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.",
		"object": "Object is the object after an ADDED or MODIFIED event, its last state before a DELETED event, an object carrying only the resource version on a BOOKMARK, and a Status on an ERROR.",
	},
	"io.k8s.apimachinery.pkg.apis.meta.v1.GroupResource": {
		"":         "GroupResource names a resource of an API group, whatever its version.",
		"group":    "Group is the API group; empty for the core group.",
		"resource": "Resource is the plural resource name.",
	},
}

// docs returns the SwaggerDoc() of t, or nil.
func docs(t reflect.Type) map[string]string {
	switch {
	case t.Implements(swaggerDoccerType):
		return reflect.Zero(t).Interface().(swaggerDoccer).SwaggerDoc()
	case reflect.PointerTo(t).Implements(swaggerDoccerType):
		return reflect.New(t).Interface().(swaggerDoccer).SwaggerDoc()
	}
	return nil
}

// docsOf returns the docs of the named type t: its SwaggerDoc(), else
// ours.
func docsOf(t reflect.Type, name string) map[string]string {
	if d := docs(t); d != nil {
		return d
	}
	return extraDocs[name]
}
