package handlers

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/internal/endpoints/warning"
)

// invalidManagedFieldsAfterAdmission is upstream's warning when mutating
// admission left managedFields that do not decode; they are put back.
const invalidManagedFieldsAfterAdmission = ".metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: %v"

// NewFieldManager builds the field manager of one endpoint: objects of
// kind served at it, handed to and from storage in the hub version, with
// subresource ("" or "status", ...) recorded on its entries. resetFields
// are the top-level or dotted field names ("status", "status.certificate")
// the endpoint's writes ignore (rest.ResetFieldsStrategy); no manager
// owns them through this endpoint. Building never calls the type
// converter, so a lazy one stays lazy until the first write.
func NewFieldManager(tc managedfields.TypeConverter, scheme *runtime.Scheme, kind schema.GroupVersionKind, hub schema.GroupVersion, subresource string, resetFields map[string]struct{}) (*managedfields.FieldManager, error) {
	filter, err := resetFieldsFilter(scheme, kind, hub, resetFields)
	if err != nil {
		return nil, err
	}
	convertor := crossGroupConvertor{ObjectConvertor: scheme, creater: scheme, typer: scheme}
	return managedfields.NewDefaultFieldManager(tc, convertor, scheme, scheme, kind, hub, subresource, filter)
}

// resetFieldsFilter excludes the reset fields in every version of the kind
// a manager may write through (entries record the version written).
func resetFieldsFilter(scheme *runtime.Scheme, kind schema.GroupVersionKind, hub schema.GroupVersion, names map[string]struct{}) (map[fieldpath.APIVersion]fieldpath.Filter, error) {
	if len(names) == 0 {
		// Most resources reset nothing; asking the scheme for the kind's
		// versions walks every known type, for each of ~200 field
		// managers a server builds at start.
		return nil, nil
	}
	versions := append(scheme.VersionsForGroupKind(kind.GroupKind()), kind.GroupVersion(), hub)
	return ResetFieldsFilter(versions, names)
}

// ResetFieldsFilter excludes the reset fields (dotted paths such as
// "status" or "spec.replicas") from the managed fields of every version
// in versions; nil when there are none.
func ResetFieldsFilter(versions []schema.GroupVersion, names map[string]struct{}) (map[fieldpath.APIVersion]fieldpath.Filter, error) {
	if len(names) == 0 {
		return nil, nil
	}
	paths := make([]fieldpath.Path, 0, len(names))
	for name := range names {
		var parts []any
		for part := range strings.SplitSeq(name, ".") {
			parts = append(parts, part)
		}
		p, err := fieldpath.MakePath(parts...)
		if err != nil {
			return nil, fmt.Errorf("reset field %q: %w", name, err)
		}
		paths = append(paths, p)
	}
	sets := make(map[fieldpath.APIVersion]*fieldpath.Set, len(versions))
	for _, gv := range versions {
		sets[fieldpath.APIVersion(gv.String())] = fieldpath.NewSet(paths...)
	}
	return fieldpath.NewExcludeFilterSetMap(sets), nil
}

// crossGroupConvertor converts to a group version as responses do: a type
// of another group becomes the kind of the same name in the target
// (core/v1 Events served as events.k8s.io/v1), which a plain
// GroupVersion target refuses. A typed object already of a kind of the
// target, with that kind set, is returned as it is: the field manager
// converts only to read (to build typed values), and the scheme's
// conversion would deep-copy the whole object twice per write.
type crossGroupConvertor struct {
	runtime.ObjectConvertor
	creater runtime.ObjectCreater
	typer   runtime.ObjectTyper
}

func (c crossGroupConvertor) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	if gv, ok := target.(schema.GroupVersion); ok {
		if c.alreadyIn(in, gv) {
			return in, nil
		}
		target = servedVersioner{gv: gv, creater: c.creater}
	}
	return c.ObjectConvertor.ConvertToVersion(in, target)
}

func (c crossGroupConvertor) alreadyIn(in runtime.Object, gv schema.GroupVersion) bool {
	if _, ok := in.(runtime.Unstructured); ok || in == nil {
		return false
	}
	gvk := in.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" || gvk.GroupVersion() != gv {
		return false
	}
	kinds, _, err := c.typer.ObjectKinds(in)
	return err == nil && slices.Contains(kinds, gvk)
}

// managerOrUserAgent is the manager of a non-apply write: the
// fieldManager option, else the User-Agent up to its first "/"
// ("kubectl", "Go-http-client"), printable characters only, cut to the
// longest manager name allowed.
func managerOrUserAgent(manager, userAgent string) string {
	if manager != "" {
		return manager
	}
	prefix, _, _ := strings.Cut(userAgent, "/")
	var b strings.Builder
	for _, r := range prefix {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > metav1validation.FieldManagerMaxLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// updateManagedFields records a non-apply write of obj over live by
// manager. Failures keep live's entries (the field manager logs them):
// a write never fails for its bookkeeping.
func (s *RequestScope) updateManagedFields(live, obj runtime.Object, manager string) runtime.Object {
	if s.FieldManager == nil {
		return obj
	}
	return s.FieldManager.UpdateNoErrors(live, obj, manager)
}

// guardManagedFields runs admit and puts back the managedFields of obj
// if admission left them undecodable, with upstream's warning. When
// encoded says the field manager has just written them (so they decode),
// entries admission left as they were are not decoded again: decoding
// every entry's field set was ~7% of a create's allocations.
func guardManagedFields(ctx context.Context, obj runtime.Object, encoded bool, admit func() error) error {
	accessor, err := meta.Accessor(obj)
	if obj == nil || err != nil {
		return admit()
	}
	before := slices.Clone(accessor.GetManagedFields())
	if err := admit(); err != nil {
		return err
	}
	after := accessor.GetManagedFields()
	if encoded && sameManagedFields(before, after) {
		return nil
	}
	if err := managedfields.ValidateManagedFields(after); err != nil {
		accessor.SetManagedFields(before)
		warning.AddWarning(ctx, "", fmt.Sprintf(invalidManagedFieldsAfterAdmission, err))
	}
	return nil
}

// sameManagedFields reports whether a and b hold the same entries, field
// sets compared by their bytes.
func sameManagedFields(a, b []metav1.ManagedFieldsEntry) bool {
	return slices.EqualFunc(a, b, func(x, y metav1.ManagedFieldsEntry) bool {
		return x.Manager == y.Manager && x.Operation == y.Operation && x.APIVersion == y.APIVersion &&
			x.FieldsType == y.FieldsType && x.Subresource == y.Subresource &&
			x.Time.Equal(y.Time) && sameFieldsV1(x.FieldsV1, y.FieldsV1)
	})
}

func sameFieldsV1(a, b *metav1.FieldsV1) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(a.Raw, b.Raw)
}

// keepManagedFieldsTimes gives obj's managedFields entries old's times
// back when they and the rest of the object are otherwise unchanged: a
// repeated apply or update then writes nothing (no new resourceVersion,
// no watch event), as upstream.
func keepManagedFieldsTimes(obj, old runtime.Object) {
	newAccessor, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	oldAccessor, err := meta.Accessor(old)
	if err != nil {
		return
	}
	entries, oldEntries := newAccessor.GetManagedFields(), oldAccessor.GetManagedFields()
	if len(entries) == 0 || len(entries) != len(oldEntries) || !sameButTimes(entries, oldEntries) {
		return
	}
	times := make([]*metav1.Time, len(entries))
	for i := range entries {
		times[i] = entries[i].Time
		entries[i].Time = oldEntries[i].Time
	}
	newAccessor.SetManagedFields(entries)
	// The field manager's result carries its kind; what storage read may not.
	kind := obj.GetObjectKind().GroupVersionKind()
	obj.GetObjectKind().SetGroupVersionKind(old.GetObjectKind().GroupVersionKind())
	unchanged := apiequality.Semantic.DeepEqual(obj, old)
	obj.GetObjectKind().SetGroupVersionKind(kind)
	if unchanged {
		return
	}
	for i := range entries {
		entries[i].Time = times[i]
	}
	newAccessor.SetManagedFields(entries)
}

// sameButTimes reports entries equal to old ones but for times, at least
// one of which moved.
func sameButTimes(entries, old []metav1.ManagedFieldsEntry) bool {
	moved := false
	for i := range entries {
		a, b := entries[i], old[i]
		if !a.Time.Equal(b.Time) {
			moved = true
		}
		a.Time, b.Time = nil, nil
		if !apiequality.Semantic.DeepEqual(a, b) {
			return false
		}
	}
	return moved
}

// ManagerFromUserAgent is the field manager a write without ?fieldManager
// is recorded under: the user agent up to its first "/".
func ManagerFromUserAgent(userAgent string) string { return managerOrUserAgent("", userAgent) }
