// Package routes describes the REST paths of served resources as OpenAPI
// path items, v2 and v3: one operation per verb with upstream's
// operation ids, parameters, responses and Kubernetes extensions
// (x-kubernetes-action, x-kubernetes-group-version-kind).
//
// The operations are first built in one neutral form (operation), from
// the resources' discovery entries as kube-apiserver's installer lays out
// its routes, then rendered twice: as swagger 2.0 path items and as
// OpenAPI 3.0 paths. Parameters every operation of a path shares move to
// the path item, as kube-openapi's builders do; shared parameters are
// inlined, not referenced from a top-level "parameters" section.
package routes

import (
	"reflect"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Resource is one served resource or subresource.
type Resource struct {
	// GroupVersion is where it is served (its path prefix).
	GroupVersion schema.GroupVersion
	// APIResource is its discovery entry: name ("deployments" or
	// "deployments/status"), scope, verbs, and the group and version of
	// its kind when another (deployments/scale is autoscaling/v1 Scale).
	APIResource metav1.APIResource
	// Kind is the kind of its objects (autoscaling/v1 Scale for
	// deployments/scale).
	Kind schema.GroupVersionKind
	// Object and List are the definition names of the object and, for a
	// listable resource, its list (io.k8s.api.apps.v1.DeploymentList).
	Object, List string
	// PatchTypes are the content types PATCH accepts.
	PatchTypes []string
	// ConnectMethods are the HTTP methods of a connect subresource
	// (pods/exec), empty otherwise.
	ConnectMethods []string

	// ConnectOptions is the Go type of a connect subresource's query
	// options (core/v1 PodExecOptions). When nil, the options of
	// upstream's kubelet-backed subresources are found from Kind.
	ConnectOptions reflect.Type
	// ConnectSubpath says a connect subresource also serves
	// .../{name}/<sub>/{path}; proxy subresources always do.
	ConnectSubpath bool
	// GetOptions is the Go type of the query options of GET (pods/log:
	// core/v1 PodLogOptions), nil when it takes none beyond pretty.
	GetOptions reflect.Type
	// GetProduces are media types GET answers before the serializers'
	// (pods/log: text/plain); its body is then described as a string.
	GetProduces []string
	// DeleteReturnsObject says DELETE answers with the deleted object
	// rather than a Status (pods, services, namespaces).
	DeleteReturnsObject bool
}

// Paths are the path items of some resources, keyed by URL path.
type Paths struct {
	V2 map[string]spec.PathItem
	V3 map[string]*spec3.Path
	// Types are the Go types the operations refer to beside the
	// resources' own (Status, DeleteOptions, WatchEvent, Patch, ...):
	// their definitions must be in the same document.
	Types []reflect.Type
}

// Build returns the path items of resources, all of one group version,
// with the discovery path of the group version (GET /apis/<g>/<v>/).
// The result depends only on its arguments, whatever their order.
func Build(gv schema.GroupVersion, resources []Resource) Paths {
	b := newBuilder(gv, resources)
	b.addDiscovery()
	sorted := append([]Resource(nil), resources...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].APIResource.Name < sorted[j].APIResource.Name })
	for i := range sorted {
		b.addResource(&sorted[i])
	}
	out := Paths{V2: make(map[string]spec.PathItem, len(b.paths)), V3: make(map[string]*spec3.Path, len(b.paths))}
	for path, ops := range b.paths {
		common, own := hoist(ops)
		out.V2[path] = renderV2(common, own)
		out.V3[path] = renderV3(common, own)
	}
	out.Types = b.refs.types()
	return out
}

// builder collects the operations of one group version by path.
type builder struct {
	gv     schema.GroupVersion
	prefix string // "/api/v1" or "/apis/<group>/<version>"
	tag    string // "core_v1", "apps_v1", "rbacAuthorization_v1"
	idPart string // "CoreV1", "AppsV1", "RbacAuthorizationV1"
	// kinds are the kinds of the main resources by name, which name
	// their subresources' operations (readAppsV1NamespacedDeploymentScale).
	kinds map[string]string
	paths map[string][]operation
	refs  refSet
}

func newBuilder(gv schema.GroupVersion, resources []Resource) *builder {
	group := gv.Group
	prefix := "/apis/" + group + "/" + gv.Version
	if group == "" {
		// Operation ids and tags name the legacy group "core".
		group, prefix = "core", "/api/"+gv.Version
	}
	group = strings.TrimSuffix(group, ".k8s.io")
	b := &builder{
		gv:     gv,
		prefix: prefix,
		tag:    validID(group, false) + "_" + validID(gv.Version, false),
		idPart: validID(group, true) + validID(gv.Version, true),
		kinds:  map[string]string{},
		paths:  map[string][]operation{},
	}
	for _, r := range resources {
		if !strings.Contains(r.APIResource.Name, "/") {
			b.kinds[r.APIResource.Name] = r.Kind.Kind
		}
	}
	return b
}

// add appends op to the operations of path (relative to the prefix).
func (b *builder) add(path string, op operation) {
	op.tag = b.tag
	full := b.prefix + "/" + path
	b.paths[full] = append(b.paths[full], op)
}

// addDiscovery adds GET <prefix>/, the group version's APIResourceList.
func (b *builder) addDiscovery() {
	list := b.use(refAPIResourceList)
	b.add("", operation{
		method:      "GET",
		id:          "get" + b.idPart + "APIResources",
		description: "get available resources",
		consumes:    mediaTypes,
		produces:    mediaTypes,
		responses:   []response{{code: 200, description: "OK", ref: list}},
	})
}

// hoist splits the parameters of a path's operations into those every
// operation has (they go on the path item) and each one's own, as
// kube-openapi does; when operations describe a shared parameter
// differently, the last one's description wins, as upstream.
func hoist(ops []operation) (common []param, own []operation) {
	type key struct{ name, in string }
	count := map[key]int{}
	last := map[key]param{}
	for _, op := range ops {
		for _, p := range op.params {
			k := key{p.name, p.in}
			count[k]++
			last[k] = p
		}
	}
	shared := map[key]bool{}
	for k, n := range count {
		if n == len(ops) {
			shared[k] = true
			common = append(common, last[k])
		}
	}
	sortParams(common)
	own = make([]operation, len(ops))
	for i, op := range ops {
		var ps []param
		for _, p := range op.params {
			if !shared[key{p.name, p.in}] {
				ps = append(ps, p)
			}
		}
		sortParams(ps)
		op.params = ps
		own[i] = op
	}
	return common, own
}

func sortParams(ps []param) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].name != ps[j].name {
			return ps[i].name < ps[j].name
		}
		return ps[i].in < ps[j].in
	})
}
