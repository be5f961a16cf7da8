package server

import (
	"context"
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// strategy is the create, update and delete strategy of one CRD's custom
// resources. Objects, new and old, are in the version of the request
// (versionedStorage reads them so), as in upstream's per-version stores;
// they are pruned, defaulted and validated with that version's schema,
// and versionedStorage stores them in the storage version.
type strategy struct {
	typer      crdTyper
	namespaced bool
	// hasStatus: the status subresource is on, so main writes do not
	// change status and status writes change only status.
	hasStatus bool
	// schemas by version name.
	schemas        map[string]VersionSchema
	storageVersion string
	// statusWrite marks the strategy of the status subresource.
	statusWrite bool
}

var _ rest.RESTCreateStrategy = (*strategy)(nil)
var _ rest.RESTUpdateStrategy = (*strategy)(nil)

func (s *strategy) ObjectKinds(obj runtime.Object) ([]schemaGVK, bool, error) {
	return s.typer.ObjectKinds(obj)
}

func (s *strategy) Recognizes(gvk schemaGVK) bool { return s.typer.Recognizes(gvk) }

func (s *strategy) NamespaceScoped() bool          { return s.namespaced }
func (s *strategy) AllowCreateOnUpdate() bool      { return false }
func (s *strategy) AllowUnconditionalUpdate() bool { return false }

func (s *strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	u := obj.(*unstructured.Unstructured)
	if s.hasStatus {
		delete(u.Object, "status")
	}
	u.SetGeneration(1)
	s.pruneAndDefault(u)
}

func (s *strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	u, o := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	switch {
	case s.statusWrite:
		// Only status (and metadata) change on status writes.
		keepExcept(u, o, "status")
	case s.hasStatus:
		if st, ok := o.Object["status"]; ok {
			u.Object["status"] = runtime.DeepCopyJSONValue(st)
		} else {
			delete(u.Object, "status")
		}
	}
	s.pruneAndDefault(u)
	generation := o.GetGeneration()
	if specChanged(u, o) {
		generation++
	}
	u.SetGeneration(generation)
}

// keepExcept replaces every top-level field of u but metadata and field
// (and apiVersion/kind) by old's.
func keepExcept(u, old *unstructured.Unstructured, keep string) {
	for k := range maps.Clone(u.Object) {
		if k != "metadata" && k != keep && k != "apiVersion" && k != "kind" {
			delete(u.Object, k)
		}
	}
	for k, v := range old.Object {
		if k != "metadata" && k != keep && k != "apiVersion" && k != "kind" {
			u.Object[k] = runtime.DeepCopyJSONValue(v)
		}
	}
}

// specChanged: anything but metadata and status (and the version, which
// does not change the content) differs.
func specChanged(u, old *unstructured.Unstructured) bool {
	strip := func(m map[string]any) map[string]any {
		c := maps.Clone(m)
		for _, k := range []string{"metadata", "status", "apiVersion", "kind"} {
			delete(c, k)
		}
		return c
	}
	return !equality.Semantic.DeepEqual(strip(u.Object), strip(old.Object))
}

func (s *strategy) schemaOf(u *unstructured.Unstructured) VersionSchema {
	if vs, ok := s.schemas[u.GroupVersionKind().Version]; ok {
		return vs
	}
	return noSchema{}
}

func (s *strategy) pruneAndDefault(u *unstructured.Unstructured) {
	vs := s.schemaOf(u)
	vs.Prune(u.Object)
	vs.Default(u.Object)
}

func (s *strategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return s.validate(ctx, obj.(*unstructured.Unstructured), nil)
}

func (s *strategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return s.validate(ctx, obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured))
}

// validate checks u against its version's schema; old (nil on create) is
// the stored object, in the same version.
func (s *strategy) validate(ctx context.Context, u, old *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	if _, ok := s.schemas[u.GroupVersionKind().Version]; !ok && u.GroupVersionKind().Version != s.storageVersion {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u.GetAPIVersion(), "must be one of the served versions"))
		return errs
	}
	var oldContent map[string]any
	if old != nil {
		oldContent = old.Object
	}
	return append(errs, s.schemaOf(u).Validate(ctx, u.Object, oldContent)...)
}

func (s *strategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }
func (s *strategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// Canonicalize does nothing: versionedStorage converts to the storage
// version, with the request's context a conversion webhook needs.
func (s *strategy) Canonicalize(runtime.Object) {}

// GetResetFields: main writes ignore status, status writes the rest.
func (s *strategy) GetResetFields() map[string]struct{} {
	switch {
	case s.statusWrite:
		return map[string]struct{}{"spec": {}}
	case s.hasStatus:
		return map[string]struct{}{"status": {}}
	}
	return nil
}
