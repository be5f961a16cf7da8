// Package routes describes the REST paths of served resources as OpenAPI
// path items, v2 and v3: one operation per verb with upstream's
// operation ids, parameters, responses and Kubernetes extensions
// (x-kubernetes-action, x-kubernetes-group-version-kind).
package routes

import (
	"reflect"

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
// STUB: no paths until the builder lands.
func Build(gv schema.GroupVersion, resources []Resource) Paths {
	return Paths{V2: map[string]spec.PathItem{}, V3: map[string]*spec3.Path{}}
}
