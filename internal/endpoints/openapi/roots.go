package openapi

import (
	"reflect"
	"strings"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
)

// rootRoute is the one GET of a discovery root's document: /api/,
// /apis/, /apis/<group>/ or /version/.
type rootRoute struct {
	key, path   string
	description string
	operationID string
	tag         string
	response    reflect.Type
	mediaTypes  []string
}

// rootRoutes lists the discovery roots kube-apiserver documents beside
// its group versions: /api when the core group is served, /apis, each
// named group, and /version.
func rootRoutes(core bool, groups []string) []rootRoute {
	discovery := []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}
	var out []rootRoute
	if core {
		out = append(out, rootRoute{
			key: "api", path: "/api/", description: "get available API versions",
			operationID: "getCoreAPIVersions", tag: "core",
			response: reflect.TypeFor[metav1.APIVersions](), mediaTypes: discovery,
		})
	}
	out = append(out, rootRoute{
		key: "apis", path: "/apis/", description: "get available API versions",
		operationID: "getAPIVersions", tag: "apis",
		response: reflect.TypeFor[metav1.APIGroupList](), mediaTypes: discovery,
	})
	for _, g := range groups {
		// Upstream names a group's operations after the group without
		// ".k8s.io": rbac.authorization.k8s.io is getRbacAuthorizationAPIGroup.
		name := strings.TrimSuffix(g, ".k8s.io")
		out = append(out, rootRoute{
			key: "apis/" + g, path: "/apis/" + g + "/", description: "get information of a group",
			operationID: "get" + camel(name, true) + "APIGroup", tag: camel(name, false),
			response: reflect.TypeFor[metav1.APIGroup](), mediaTypes: discovery,
		})
	}
	return append(out, rootRoute{
		key: "version", path: "/version/", description: "get the version information for this server",
		operationID: "getCodeVersion", tag: "version",
		response: reflect.TypeFor[version.Info](), mediaTypes: []string{"application/json"},
	})
}

// camel joins the words of s (split at anything not a letter or digit)
// in camel case.
func camel(s string, upperFirst bool) string {
	var b strings.Builder
	upper := upperFirst
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			upper = b.Len() > 0 || upperFirst
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// v2Path is the path item of the root's GET in the v2 document.
func (r *rootRoute) v2Path() map[string]spec.PathItem {
	op := &spec.Operation{OperationProps: spec.OperationProps{
		Description: r.description,
		Consumes:    r.mediaTypes,
		Produces:    r.mediaTypes,
		Schemes:     []string{"https"},
		Tags:        []string{r.tag},
		ID:          r.operationID,
		Responses: &spec.Responses{ResponsesProps: spec.ResponsesProps{StatusCodeResponses: map[int]spec.Response{
			200: {ResponseProps: spec.ResponseProps{Description: "OK", Schema: spec.RefSchema("#/definitions/" + definitions.Name(r.response))}},
			401: {ResponseProps: spec.ResponseProps{Description: "Unauthorized"}},
		}}},
	}}
	return map[string]spec.PathItem{r.path: {PathItemProps: spec.PathItemProps{Get: op}}}
}

// v3Path is the path of the root's GET in its v3 document.
func (r *rootRoute) v3Path() map[string]*spec3.Path {
	ref := spec.RefSchema("#/components/schemas/" + definitions.Name(r.response))
	content := make(map[string]*spec3.MediaType, len(r.mediaTypes))
	for _, mt := range r.mediaTypes {
		content[mt] = &spec3.MediaType{MediaTypeProps: spec3.MediaTypeProps{Schema: ref}}
	}
	op := &spec3.Operation{OperationProps: spec3.OperationProps{
		Description: r.description,
		OperationId: r.operationID,
		Tags:        []string{r.tag},
		Responses: &spec3.Responses{ResponsesProps: spec3.ResponsesProps{StatusCodeResponses: map[int]*spec3.Response{
			200: {ResponseProps: spec3.ResponseProps{Description: "OK", Content: content}},
			401: {ResponseProps: spec3.ResponseProps{Description: "Unauthorized"}},
		}}},
	}}
	return map[string]*spec3.Path{r.path: {PathProps: spec3.PathProps{Get: op}}}
}
