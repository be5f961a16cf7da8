// Package persistentvolumeclaim is the REST storage of core/v1 persistent
// volume claims: the strategies of the main resource and of
// persistentvolumeclaims/status, and the table kubectl prints.
package persistentvolumeclaim

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/core/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how claims are written through the main resource: status
// belongs to the binder, and a new claim starts Pending.
type Strategy struct {
	rest.DefaultStrategy
}

// StatusStrategy is the update strategy of persistentvolumeclaims/status.
type StatusStrategy struct {
	Strategy
}

var (
	_ generic.ResourceStrategy = Strategy{}
	_ rest.RESTUpdateStrategy  = StatusStrategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
	_ rest.ResetFieldsStrategy = StatusStrategy{}
)

// NewStrategy returns the claim strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.DefaultStrategy{ObjectTyper: typer}}
}

// GetResetFields: main-resource writes ignore status.
func (Strategy) GetResetFields() map[string]struct{} { return map[string]struct{}{"status": {}} }

// PrepareForCreate starts the claim Pending and fills whichever of
// dataSource and dataSourceRef is missing from the other.
func (Strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	pvc := obj.(*corev1.PersistentVolumeClaim)
	pvc.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
	normalizeDataSources(&pvc.Spec)
}

// PrepareForUpdate keeps the stored status.
func (Strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pvc := obj.(*corev1.PersistentVolumeClaim)
	pvc.Status = old.(*corev1.PersistentVolumeClaim).Status
	normalizeDataSources(&pvc.Spec)
}

// normalizeDataSources mirrors dataSource into dataSourceRef and back, as
// upstream does since AnyVolumeDataSource; a cross-namespace reference has
// no dataSource form.
func normalizeDataSources(spec *corev1.PersistentVolumeClaimSpec) {
	switch ds, ref := spec.DataSource, spec.DataSourceRef; {
	case ds != nil && ref == nil:
		spec.DataSourceRef = &corev1.TypedObjectReference{APIGroup: copyString(ds.APIGroup), Kind: ds.Kind, Name: ds.Name}
	case ref != nil && ds == nil && (ref.Namespace == nil || *ref.Namespace == ""):
		spec.DataSource = &corev1.TypedLocalObjectReference{APIGroup: copyString(ref.APIGroup), Kind: ref.Kind, Name: ref.Name}
	}
}

func copyString(s *string) *string {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// Validate checks a new claim.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidatePersistentVolumeClaim(obj.(*corev1.PersistentVolumeClaim))
}

// ValidateUpdate checks the claim and what of its spec may change.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidatePersistentVolumeClaimUpdate(obj.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim))
}

// WarningsOnCreate warns about the deprecated storage-class annotation.
func (Strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return warnings(obj.(*corev1.PersistentVolumeClaim))
}

// WarningsOnUpdate warns about the deprecated storage-class annotation.
func (Strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return warnings(obj.(*corev1.PersistentVolumeClaim))
}

func warnings(pvc *corev1.PersistentVolumeClaim) []string {
	if _, ok := pvc.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		return []string{fmt.Sprintf("metadata.annotations[%s]: deprecated since v1.8; use \"storageClassName\" attribute instead", corev1.BetaStorageClassAnnotation)}
	}
	return nil
}

// GetResetFields: status writes ignore spec.
func (StatusStrategy) GetResetFields() map[string]struct{} { return map[string]struct{}{"spec": {}} }

// PrepareForUpdate keeps the stored spec.
func (StatusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.PersistentVolumeClaim).Spec = old.(*corev1.PersistentVolumeClaim).Spec
}

// ValidateUpdate checks a status write.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidatePersistentVolumeClaimStatusUpdate(obj.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim))
}

// WarningsOnUpdate returns none for status writes.
func (StatusStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// GetAttrs returns a claim's labels and selectable fields: the metadata
// ones and the legacy "name" upstream keeps for old internal callers.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil, nil, fmt.Errorf("not a persistentvolumeclaim: %T", obj)
	}
	ls, fs, err := generic.DefaultNamespaceScopedAttr(pvc)
	if err != nil {
		return nil, nil, err
	}
	fs["name"] = pvc.Name
	return ls, fs, nil
}
