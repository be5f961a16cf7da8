package routes

import (
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
)

// operation is one operation in a form both renderings start from.
type operation struct {
	method      string // HTTP method, upper case
	id          string
	description string
	tag         string
	// action is x-kubernetes-action (get, list, watch, watchlist, post,
	// put, patch, delete, deletecollection, connect); empty with gvk
	// nil for the discovery operation.
	action string
	gvk    *schema.GroupVersionKind
	params []param
	// body is the definition name of the request body, empty for none.
	body         string
	bodyRequired bool
	consumes     []string
	produces     []string
	responses    []response
}

// param is a path or query parameter.
type param struct {
	name, in, description string
	typ                   string // JSON type: string, integer, boolean, number
	required              bool
}

// response is one status code's answer; an empty ref is a plain string
// (logs, connect streams).
type response struct {
	code        int
	description string
	ref         string
}

// The media types served, in the order upstream lists them. CBOR is not
// listed: kapi does not serve it.
var (
	mediaTypes       = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}
	streamMediaTypes = []string{"application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"}
	allMediaTypes    = joinTypes(mediaTypes, streamMediaTypes)
	anyMediaType     = []string{"*/*"}
)

// defaultPatchTypes are the patch types listed when a resource names
// none.
var defaultPatchTypes = []string{
	"application/json-patch+json",
	"application/merge-patch+json",
	"application/strategic-merge-patch+json",
	"application/apply-patch+yaml",
}

// The types operations refer to beside the resources' own, in the
// order Paths.Types lists them.
var (
	refAPIResourceList = reflect.TypeFor[metav1.APIResourceList]()
	refStatus          = reflect.TypeFor[metav1.Status]()
	refDeleteOptions   = reflect.TypeFor[metav1.DeleteOptions]()
	refPatch           = reflect.TypeFor[metav1.Patch]()
	refWatchEvent      = reflect.TypeFor[metav1.WatchEvent]()
	refOrder           = []reflect.Type{refAPIResourceList, refStatus, refDeleteOptions, refPatch, refWatchEvent}
)

// name is the definition name of t.
func name(t reflect.Type) string { return definitions.Name(t) }

// refSet records which of refOrder the operations used.
type refSet map[reflect.Type]bool

func (s *refSet) add(t reflect.Type) {
	if *s == nil {
		*s = refSet{}
	}
	(*s)[t] = true
}

func (s refSet) types() []reflect.Type {
	var out []reflect.Type
	for _, t := range refOrder {
		if s[t] {
			out = append(out, t)
		}
	}
	return out
}

// use records that the operations refer to t and returns its
// definition name.
func (b *builder) use(t reflect.Type) string {
	b.refs.add(t)
	return name(t)
}

// joinTypes returns a new list of the media types of a then b.
func joinTypes(a, b []string) []string {
	return append(append(make([]string, 0, len(a)+len(b)), a...), b...)
}

// objectResponses answers ref under each of codes.
func objectResponses(ref string, codes ...int) []response {
	out := make([]response, len(codes))
	for i, c := range codes {
		out[i] = response{code: c, description: statusText[c], ref: ref}
	}
	return out
}

// statusText are the response descriptions upstream uses.
var statusText = map[int]string{200: "OK", 201: "Created", 202: "Accepted", 401: "Unauthorized"}
