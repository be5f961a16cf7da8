package request

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/validation/path"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RequestInfoFactory turns the method and path of a request into a
// RequestInfo, the way kube-apiserver does, so that authorization, audit and
// the handlers agree on what a URL means.
type RequestInfoFactory struct {
	// APIPrefixes are the first path segments that start a resource path,
	// normally "api" and "apis".
	APIPrefixes []string
	// GrouplessAPIPrefixes are the prefixes not followed by a group name,
	// normally "api" (the legacy core group).
	GrouplessAPIPrefixes []string
}

// NewRequestInfoFactory returns the factory for the standard Kubernetes
// prefixes.
func NewRequestInfoFactory() *RequestInfoFactory {
	return &RequestInfoFactory{
		APIPrefixes:          []string{"api", "apis"},
		GrouplessAPIPrefixes: []string{"api"},
	}
}

// pathVerbs may appear as the first segment after the version, the legacy
// way of asking for a watch or a proxy (/api/v1/watch/pods).
var pathVerbs = []string{"proxy", "watch"}

// namespaceSubresources are the segments after /namespaces/<name> that name a
// subresource of the namespace itself rather than a resource inside it.
var namespaceSubresources = []string{"status", "finalize"}

// methodVerbs maps HTTP methods to the verb used before the name is known;
// get and delete become list/watch and deletecollection without a name.
var methodVerbs = map[string]string{
	http.MethodGet:    "get",
	http.MethodHead:   "get",
	http.MethodPost:   "create",
	http.MethodPut:    "update",
	http.MethodPatch:  "patch",
	http.MethodDelete: "delete",
}

// NewRequestInfo parses req. Paths outside the API prefixes, and the
// discovery paths /api, /api/<v>, /apis, /apis/<g>, /apis/<g>/<v>, are
// non-resource requests whose verb is the lower-cased method. Resource paths
// have the shapes
//
//	/<prefix>[/<group>]/<version>[/watch|proxy][/namespaces/<ns>]/<resource>[/<name>[/<subresource>...]]
//
// An error is returned only for a path verb with nothing after it.
func (f *RequestInfoFactory) NewRequestInfo(req *http.Request) (*RequestInfo, error) {
	info := &RequestInfo{
		Path: req.URL.Path,
		Verb: strings.ToLower(req.Method),
	}
	parts := splitPath(req.URL.Path)
	if len(parts) < 3 || !slices.Contains(f.APIPrefixes, parts[0]) {
		return info, nil
	}
	info.APIPrefix = parts[0]
	parts = parts[1:]
	if !slices.Contains(f.GrouplessAPIPrefixes, info.APIPrefix) {
		// A group needs group, version and resource after the prefix.
		if len(parts) < 3 {
			return info, nil
		}
		info.APIGroup = parts[0]
		parts = parts[1:]
	}
	info.IsResourceRequest = true
	info.APIVersion = parts[0]
	parts = parts[1:]

	verbFromPath := slices.Contains(pathVerbs, parts[0])
	if verbFromPath {
		if len(parts) < 2 {
			return info, fmt.Errorf("unable to determine kind and namespace from url %q", req.URL.Path)
		}
		info.Verb = parts[0]
		parts = parts[1:]
	} else {
		info.Verb = methodVerbs[req.Method]
	}

	info.Parts = namespaceParts(info, parts)
	assignResourceParts(info)

	if info.Name == "" && info.Verb == "get" {
		resolveCollectionRead(info, req)
	}
	if info.Name == "" && info.Verb == "delete" {
		info.Verb = "deletecollection"
	}
	return info, nil
}

// namespaceParts sets info.Namespace from a /namespaces/<ns>/ prefix and
// returns the parts that remain. The namespace object itself
// (/namespaces/<ns>, /namespaces/<ns>/status) keeps "namespaces" as its
// resource, with the namespace also recorded as its name's namespace, as
// upstream does.
func namespaceParts(info *RequestInfo, parts []string) []string {
	if parts[0] != "namespaces" {
		info.Namespace = metav1.NamespaceNone
		return parts
	}
	if len(parts) > 1 {
		info.Namespace = parts[1]
		if len(parts) > 2 && !slices.Contains(namespaceSubresources, parts[2]) {
			return parts[2:]
		}
	}
	return parts
}

// assignResourceParts reads resource[/name[/subresource]] from info.Parts.
// A proxy path keeps everything after the name as the proxied path, so it
// has no subresource.
func assignResourceParts(info *RequestInfo) {
	p := info.Parts
	if len(p) >= 3 && info.Verb != "proxy" {
		info.Subresource = p[2]
	}
	if len(p) >= 2 {
		info.Name = p[1]
	}
	if len(p) >= 1 {
		info.Resource = p[0]
	}
}

// resolveCollectionRead turns a nameless get into list or watch, and picks
// the name out of a metadata.name field selector so that authorizers can
// allow a single-object list/watch (what kubectl get <name> -w sends).
func resolveCollectionRead(info *RequestInfo, req *http.Request) {
	opts := metainternalversion.ListOptions{}
	query := req.URL.Query()
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(query, metav1.SchemeGroupVersion, &opts); err != nil {
		// A bad selector must not hide a watch: fall back to the watch
		// parameter alone and ignore the rest.
		opts = metainternalversion.ListOptions{Watch: watchParam(query["watch"])}
	}
	if opts.Watch {
		info.Verb = "watch"
	} else {
		info.Verb = "list"
	}
	if opts.FieldSelector == nil {
		return
	}
	if name, ok := opts.FieldSelector.RequiresExactMatch("metadata.name"); ok && len(path.IsValidPathSegmentName(name)) == 0 {
		info.Name = name
	}
}

// watchParam reads a boolean query parameter the way the parameter codec
// does: present and not false/0 means true.
func watchParam(values []string) bool {
	if len(values) == 0 {
		return false
	}
	switch strings.ToLower(values[0]) {
	case "false", "0":
		return false
	}
	return true
}

// splitPath returns the non-empty segments of p without the outer slashes.
func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
