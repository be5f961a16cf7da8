package routes

import (
	"net/http"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

var (
	appsV1 = schema.GroupVersion{Group: "apps", Version: "v1"}
	coreV1 = schema.GroupVersion{Version: "v1"}
	rbacV1 = schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}

	crudVerbs   = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	statusVerbs = []string{"get", "patch", "update"}
	proxyVerbs  = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
)

// defName is the definition name of a k8s.io/api type.
func defName(gv schema.GroupVersion, kind string) string {
	group := gv.Group
	if group == "" {
		group = "core"
	}
	group, _, _ = strings.Cut(group, ".")
	return "io.k8s.api." + group + "." + gv.Version + "." + kind
}

// mainResource is a listable resource with every verb.
func mainResource(gv schema.GroupVersion, name, kind string, namespaced bool) Resource {
	return Resource{
		GroupVersion: gv,
		APIResource:  metav1.APIResource{Name: name, Namespaced: namespaced, Kind: kind, Verbs: crudVerbs},
		Kind:         gv.WithKind(kind),
		Object:       defName(gv, kind), List: defName(gv, kind+"List"),
	}
}

// subresource is a subresource served as kind gvk.
func subresource(gv schema.GroupVersion, name string, namespaced bool, verbs []string, gvk schema.GroupVersionKind) Resource {
	r := Resource{
		GroupVersion: gv,
		APIResource:  metav1.APIResource{Name: name, Namespaced: namespaced, Kind: gvk.Kind, Verbs: verbs},
		Kind:         gvk,
		Object:       defName(gvk.GroupVersion(), gvk.Kind),
	}
	if gvk.GroupVersion() != gv {
		r.APIResource.Group, r.APIResource.Version = gvk.Group, gvk.Version
	}
	return r
}

// connect is a connect subresource; discovery lists its methods as verbs.
func connect(name, kind string, namespaced bool, methods ...string) Resource {
	return Resource{
		GroupVersion:   coreV1,
		APIResource:    metav1.APIResource{Name: name, Namespaced: namespaced, Kind: kind, Verbs: []string{"create", "get"}},
		Kind:           coreV1.WithKind(kind),
		Object:         defName(coreV1, kind),
		ConnectMethods: methods,
	}
}

func appsResources() []Resource {
	scale := schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	return []Resource{
		mainResource(appsV1, "deployments", "Deployment", true),
		subresource(appsV1, "deployments/status", true, statusVerbs, appsV1.WithKind("Deployment")),
		subresource(appsV1, "deployments/scale", true, statusVerbs, scale),
	}
}

func coreResources() []Resource {
	pods := mainResource(coreV1, "pods", "Pod", true)
	pods.DeleteReturnsObject = true
	namespaces := mainResource(coreV1, "namespaces", "Namespace", false)
	namespaces.APIResource.Verbs = []string{"create", "delete", "get", "list", "patch", "update", "watch"}
	return []Resource{
		pods,
		subresource(coreV1, "pods/status", true, statusVerbs, coreV1.WithKind("Pod")),
		subresource(coreV1, "pods/binding", true, []string{"create"}, coreV1.WithKind("Binding")),
		subresource(coreV1, "pods/eviction", true, []string{"create"}, schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}),
		subresource(coreV1, "pods/log", true, []string{"get"}, coreV1.WithKind("Pod")),
		connect("pods/exec", "PodExecOptions", true, "GET", "POST"),
		connect("pods/proxy", "PodProxyOptions", true, proxyVerbs...),
		mainResource(coreV1, "serviceaccounts", "ServiceAccount", true),
		subresource(coreV1, "serviceaccounts/token", true, []string{"create"}, schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest"}),
		namespaces,
		subresource(coreV1, "namespaces/finalize", false, []string{"update"}, coreV1.WithKind("Namespace")),
		mainResource(coreV1, "nodes", "Node", false),
		connect("nodes/proxy", "NodeProxyOptions", false, proxyVerbs...),
	}
}

func rbacResources() []Resource {
	return []Resource{mainResource(rbacV1, "clusterroles", "ClusterRole", false)}
}

// opInfo is what the tests check of one operation, read back from a
// rendered document.
type opInfo struct {
	id, action, tag string
	gvk             map[string]any
	// params are the names of its parameters and its path item's,
	// "in:name"; opParams only its own.
	params, opParams []string
	// body is its request body's media types, responses its codes.
	body      []string
	responses []int
}

// v3Ops reads the operations of a v3 rendering, keyed "METHOD path".
func v3Ops(paths map[string]*spec3.Path) map[string]opInfo {
	out := map[string]opInfo{}
	for path, item := range paths {
		var common []string
		for _, p := range item.Parameters {
			common = append(common, p.In+":"+p.Name)
		}
		for method, op := range map[string]*spec3.Operation{
			http.MethodGet: item.Get, http.MethodPut: item.Put, http.MethodPost: item.Post, http.MethodDelete: item.Delete,
			http.MethodPatch: item.Patch, http.MethodHead: item.Head, http.MethodOptions: item.Options,
		} {
			if op == nil {
				continue
			}
			info := opInfo{id: op.OperationId, tag: strings.Join(op.Tags, ",")}
			info.action, _ = op.Extensions["x-kubernetes-action"].(string)
			info.gvk, _ = op.Extensions["x-kubernetes-group-version-kind"].(map[string]any)
			for _, p := range op.Parameters {
				info.opParams = append(info.opParams, p.In+":"+p.Name)
			}
			info.params = append(append([]string(nil), common...), info.opParams...)
			sort.Strings(info.params)
			if op.RequestBody != nil {
				for mt := range op.RequestBody.Content {
					info.body = append(info.body, mt)
				}
				sort.Strings(info.body)
			}
			for code := range op.Responses.StatusCodeResponses {
				info.responses = append(info.responses, code)
			}
			sort.Ints(info.responses)
			out[method+" "+path] = info
		}
	}
	return out
}

// v2Ops reads the operation ids and actions of a v2 rendering.
func v2Ops(paths map[string]spec.PathItem) map[string]string {
	out := map[string]string{}
	for path, item := range paths {
		for method, op := range map[string]*spec.Operation{
			http.MethodGet: item.Get, http.MethodPut: item.Put, http.MethodPost: item.Post, http.MethodDelete: item.Delete,
			http.MethodPatch: item.Patch, http.MethodHead: item.Head, http.MethodOptions: item.Options,
		} {
			if op == nil {
				continue
			}
			action, _ := op.Extensions["x-kubernetes-action"].(string)
			out[method+" "+path] = op.ID + " " + action
		}
	}
	return out
}
