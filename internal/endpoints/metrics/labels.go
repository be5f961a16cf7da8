package metrics

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// Verbs as kube-apiserver reports them: the HTTP method, with GET split
// into GET and LIST by scope, and WATCH, APPLY and CONNECT told apart.
const (
	verbGet     = "GET"
	verbList    = "LIST"
	verbWatch   = "WATCH"
	verbPatch   = "PATCH"
	verbApply   = "APPLY"
	verbConnect = "CONNECT"
	// verbOther stands for every verb outside reportedVerbs, so a client
	// inventing methods cannot grow the metrics.
	verbOther = "other"
)

// reportedVerbs are the verbs kept as they are; the rest become "other".
var reportedVerbs = []string{"APPLY", "CONNECT", "CREATE", "DELETE", "DELETECOLLECTION", "GET", "LIST",
	"PATCH", "POST", "PROXY", "PUT", "UPDATE", "WATCH", "WATCHLIST"}

// connectSubresources are reported with the CONNECT verb.
var connectSubresources = []string{"log", "exec", "portforward", "attach", "proxy"}

const applyPatchType = "application/apply-patch+yaml"

// Labels are the label values of one request, cleaned as upstream cleans
// them.
type Labels struct {
	Verb, DryRun, Group, Version, Resource, Subresource, Scope string
}

// ResourceLabels returns the labels of a resource request.
func ResourceLabels(r *http.Request, info *request.RequestInfo) Labels {
	scope := Scope(info)
	return Labels{
		Verb:        Verb(r, info, scope),
		DryRun:      dryRun(r.URL),
		Group:       info.APIGroup,
		Version:     info.APIVersion,
		Resource:    info.Resource,
		Subresource: info.Subresource,
		Scope:       scope,
	}
}

// DiscoveryLabels returns the labels upstream gives its discovery
// documents (/api, /apis): GET, with the path as subresource.
func DiscoveryLabels(r *http.Request) Labels {
	return Labels{Verb: verbGet, DryRun: dryRun(r.URL), Subresource: strings.TrimSuffix(r.URL.Path, "/")}
}

// Scope is "resource" for a request naming an object (and for creates),
// "namespace" for one within a namespace, "cluster" for other resource
// requests and "" for the rest.
func Scope(info *request.RequestInfo) string {
	switch {
	case info.Name != "" || info.Verb == "create":
		return "resource"
	case info.Namespace != "":
		return "namespace"
	case info.IsResourceRequest:
		return "cluster"
	}
	return ""
}

// Verb is the verb label of r: its method in upper case, GET on a
// collection as LIST, watches as WATCH, apply patches as APPLY, the
// streaming subresources as CONNECT, and any unknown method as "other".
func Verb(r *http.Request, info *request.RequestInfo, scope string) string {
	verb := r.Method
	if strings.ToUpper(verb) != verb {
		verb = strings.ToUpper(verb)
	}
	if verb == http.MethodGet || verb == http.MethodHead {
		verb = verbGet
		if scope != "resource" && scope != "" {
			verb = verbList
		}
	}
	switch {
	case info.Verb == "watch" || (verb == verbGet || verb == verbList) && isWatch(r.URL):
		// Both the watch parameter and the legacy /watch/ paths.
		verb = verbWatch
	case verb == "WATCHLIST":
		verb = verbWatch
	case verb == verbPatch && r.Header.Get("Content-Type") == applyPatchType:
		verb = verbApply
	}
	if info.IsResourceRequest && info.Subresource != "" && slices.Contains(connectSubresources, info.Subresource) {
		verb = verbConnect
	}
	if !slices.Contains(reportedVerbs, verb) {
		return verbOther
	}
	return verb
}

// isWatch reads the watch parameter as apimachinery converts it to a bool:
// anything but "0" and "false" is true.
func isWatch(u *url.URL) bool {
	if !strings.Contains(u.RawQuery, "watch") {
		return false
	}
	values := u.Query()["watch"]
	if len(values) == 0 {
		return false
	}
	v := strings.ToLower(values[0])
	return v != "0" && v != "false"
}

// dryRun is the dry_run label: "" without the parameter, the sorted
// distinct values when they are all valid ("All"), else "invalid".
func dryRun(u *url.URL) string {
	if !strings.Contains(u.RawQuery, "dryRun") {
		return ""
	}
	values := u.Query()["dryRun"]
	for _, v := range values {
		if v != "All" {
			return "invalid"
		}
	}
	if len(values) == 0 {
		return ""
	}
	return "All"
}
