package openapi

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kapi-dev/kapi/internal/endpoints/openapi/definitions"
	"github.com/kapi-dev/kapi/internal/endpoints/openapi/routes"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// resourcesOf turns the discovery entries of gv into route resources, and
// returns the Go types of their objects and lists: the roots of the
// definitions the group version's document needs.
func resourcesOf(scheme *runtime.Scheme, gv schema.GroupVersion, list []metav1.APIResource, storage map[string]rest.Storage) ([]routes.Resource, []reflect.Type, error) {
	var (
		out   []routes.Resource
		roots []reflect.Type
		errs  []error
	)
	for _, ar := range list {
		kind := gv.WithKind(ar.Kind)
		if ar.Version != "" {
			// a kind of another group version, as deployments/scale's
			// autoscaling/v1 Scale
			kind = schema.GroupVersionKind{Group: ar.Group, Version: ar.Version, Kind: ar.Kind}
		}
		obj, err := scheme.New(kind)
		if err != nil {
			errs = append(errs, fmt.Errorf("resource %q of %s: %w", ar.Name, gv, err))
			continue
		}
		objType := reflect.TypeOf(obj)
		roots = append(roots, objType)
		r := routes.Resource{
			GroupVersion: gv,
			APIResource:  ar,
			Kind:         kind,
			Object:       definitions.Name(objType),
		}
		if !strings.Contains(ar.Name, "/") && slices.Contains(ar.Verbs, "list") {
			if l, err := scheme.New(kind.GroupVersion().WithKind(kind.Kind + "List")); err == nil {
				listType := reflect.TypeOf(l)
				roots = append(roots, listType)
				r.List = definitions.Name(listType)
			}
		}
		st := storage[ar.Name]
		if slices.Contains(ar.Verbs, "patch") {
			r.PatchTypes = patchTypes(st)
		}
		if c, ok := st.(rest.Connecter); ok {
			r.ConnectMethods = slices.Clone(c.ConnectMethods())
		}
		if slices.Contains(ar.Verbs, "delete") {
			r.DeleteReturnsObject = deleteReturnsObject(st)
		}
		out = append(out, r)
	}
	return out, roots, errors.Join(errs...)
}

// patchTypes are the content types PATCH of st accepts: strategic merge
// needs the Go type's patch tags, so objects without one (custom
// resources) go without.
func patchTypes(st rest.Storage) []string {
	strategic := true
	if st != nil {
		_, unstructured := st.New().(runtime.Unstructured)
		strategic = !unstructured
	}
	out := []string{string(types.JSONPatchType), string(types.MergePatchType)}
	if strategic {
		out = append(out, string(types.StrategicMergePatchType))
	}
	return append(out, string(types.ApplyYAMLPatchType))
}

// deleteReturnsObject says whether DELETE on st answers with the deleted
// object rather than a Status: storage says so through upstream's
// DeleteReturnsDeletedObject, or the generic store's flag.
func deleteReturnsObject(st rest.Storage) bool {
	switch st := st.(type) {
	case interface{ DeleteReturnsDeletedObject() bool }:
		return st.DeleteReturnsDeletedObject()
	case *generic.Store:
		return st.ReturnDeletedObject
	}
	return false
}

// keyOf is the name of gv's v3 document: its path without the leading
// slash ("api/v1", "apis/apps/v1").
func keyOf(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}
