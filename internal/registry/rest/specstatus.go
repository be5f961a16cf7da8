package rest

import (
	"context"
	"reflect"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// SpecStatusStrategy is DefaultStrategy for the many resources with a
// Spec the user owns and a Status controllers own: status is dropped on
// create and kept on update, metadata.generation starts at 1 and grows
// with every change of spec. Cluster-scoped resources override
// NamespaceScoped.
type SpecStatusStrategy struct {
	DefaultStrategy
}

// PrepareForCreate clears status and sets generation 1.
func (SpecStatusStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	ResetStatus(obj)
	SetGeneration(obj, 1)
}

// PrepareForUpdate keeps the stored status and bumps generation when the
// spec changed.
func (SpecStatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	CopyField(obj, old, "Status")
	BumpGenerationOnChange(obj, old, "Spec")
}

// GetResetFields: writes of the main resource ignore status.
func (SpecStatusStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"status": {}}
}

// StatusOwnedStrategy is SpecStatusStrategy for resources upstream gives
// no metadata.generation: status is dropped on create and kept on update.
type StatusOwnedStrategy struct {
	DefaultStrategy
}

// PrepareForCreate clears status.
func (StatusOwnedStrategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	ResetStatus(obj)
}

// PrepareForUpdate keeps the stored status.
func (StatusOwnedStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	CopyField(obj, old, "Status")
}

// GetResetFields: writes of the main resource ignore status.
func (StatusOwnedStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"status": {}}
}

// StatusSubresourceStrategy is the update strategy of a status
// subresource: the stored spec is kept, the status is taken. Validation is
// left to the embedding strategy.
type StatusSubresourceStrategy struct {
	DefaultStrategy
}

// PrepareForUpdate keeps the stored spec.
func (StatusSubresourceStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	CopyField(obj, old, "Spec")
}

// GetResetFields: status writes ignore spec.
func (StatusSubresourceStrategy) GetResetFields() map[string]struct{} {
	return map[string]struct{}{"spec": {}}
}

// ResetStatus sets obj's Status field, if it has one, to its zero value.
func ResetStatus(obj runtime.Object) {
	if f := structField(obj, "Status"); f.IsValid() {
		f.Set(reflect.Zero(f.Type()))
	}
}

// CopyField copies the named top-level field (Spec, Status, ...) of old
// into obj; objects without it are left alone.
func CopyField(obj, old runtime.Object, name string) {
	dst, src := structField(obj, name), structField(old, name)
	if dst.IsValid() && src.IsValid() && dst.Type() == src.Type() {
		dst.Set(src)
	}
}

// FieldChanged says whether the named top-level field differs
// semantically (quantities compared by value) between obj and old.
func FieldChanged(obj, old runtime.Object, name string) bool {
	a, b := structField(obj, name), structField(old, name)
	if !a.IsValid() || !b.IsValid() {
		return false
	}
	return !equality.Semantic.DeepEqual(a.Interface(), b.Interface())
}

// BumpGenerationOnChange sets obj's generation to old's, plus one when
// any of the named top-level fields changed.
func BumpGenerationOnChange(obj, old runtime.Object, fields ...string) {
	newMeta, err1 := meta.Accessor(obj)
	oldMeta, err2 := meta.Accessor(old)
	if err1 != nil || err2 != nil {
		return
	}
	generation := oldMeta.GetGeneration()
	for _, f := range fields {
		if FieldChanged(obj, old, f) {
			generation++
			break
		}
	}
	newMeta.SetGeneration(generation)
}

// SetGeneration sets metadata.generation.
func SetGeneration(obj runtime.Object, generation int64) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetGeneration(generation)
	}
}

// structField is the addressable named field of the struct obj points to,
// or the invalid Value.
func structField(obj runtime.Object, name string) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName(name)
}

// KeepStoredMetadataAndSpec is the update of status subresources that take
// nothing from the request but status and managedFields (the flow-control
// objects, as upstream): obj gets a copy of old's metadata and old's spec.
func KeepStoredMetadataAndSpec(obj, old runtime.Object) {
	newMeta, err := meta.Accessor(obj)
	dst, src := structField(obj, "ObjectMeta"), structField(old, "ObjectMeta")
	if err != nil || !dst.IsValid() || !src.IsValid() {
		return
	}
	managedFields := newMeta.GetManagedFields()
	if stored, ok := src.Addr().Interface().(*metav1.ObjectMeta); ok {
		dst.Set(reflect.ValueOf(*stored.DeepCopy()))
	}
	newMeta.SetManagedFields(managedFields)
	CopyField(obj, old, "Spec")
}
