package validation

import (
	"fmt"
	"reflect"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// claimSpecImmutableMsg is upstream's message for a forbidden change of a
// claim's spec.
const claimSpecImmutableMsg = "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"

var claimResizeStatuses = sets.New(
	corev1.PersistentVolumeClaimControllerResizeInProgress,
	corev1.PersistentVolumeClaimControllerResizeInfeasible,
	corev1.PersistentVolumeClaimNodeResizePending,
	corev1.PersistentVolumeClaimNodeResizeInProgress,
	corev1.PersistentVolumeClaimNodeResizeInfeasible,
)

// ValidatePersistentVolumeClaim checks a claim.
func ValidatePersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) field.ErrorList {
	allErrs := ValidateObjectMeta(&pvc.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidatePersistentVolumeClaimSpec(&pvc.Spec, field.NewPath("spec"))...)
}

// ValidatePersistentVolumeClaimSpec checks a claim's spec at fldPath; claim
// templates (statefulsets, ephemeral volumes) use it too.
func ValidatePersistentVolumeClaimSpec(spec *corev1.PersistentVolumeClaimSpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateAccessModes(spec.AccessModes, fldPath.Child("accessModes"), "at least 1 access mode is required")
	if spec.Selector != nil {
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("selector"))...)
	}
	storagePath := fldPath.Child("resources").Key(string(corev1.ResourceStorage))
	if q, ok := spec.Resources.Requests[corev1.ResourceStorage]; !ok {
		allErrs = append(allErrs, field.Required(storagePath, ""))
	} else if errs := checkPositiveQuantity(q, storagePath); len(errs) > 0 {
		allErrs = append(allErrs, errs...)
	} else {
		allErrs = append(allErrs, checkResourceQuantity(corev1.ResourceStorage, q, storagePath)...)
	}
	if spec.StorageClassName != nil && *spec.StorageClassName != "" {
		allErrs = append(allErrs, validateClassName(*spec.StorageClassName, fldPath.Child("storageClassName"))...)
	}
	if spec.VolumeMode != nil && !supportedVolumeModes.Has(*spec.VolumeMode) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("volumeMode"), *spec.VolumeMode, sets.List(supportedVolumeModes)))
	}
	allErrs = append(allErrs, validateClaimDataSources(spec, fldPath)...)
	if spec.VolumeAttributesClassName != nil && *spec.VolumeAttributesClassName != "" {
		allErrs = append(allErrs, validateClassName(*spec.VolumeAttributesClassName, fldPath.Child("volumeAttributesClassName"))...)
	}
	return allErrs
}

func validateClaimDataSources(spec *corev1.PersistentVolumeClaimSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if ds := spec.DataSource; ds != nil {
		allErrs = append(allErrs, validateDataSourceRef(ds.APIGroup, ds.Kind, ds.Name, fldPath.Child("dataSource"))...)
	}
	ref := spec.DataSourceRef
	if ref != nil {
		refPath := fldPath.Child("dataSourceRef")
		allErrs = append(allErrs, validateDataSourceRef(ref.APIGroup, ref.Kind, ref.Name, refPath)...)
		if ref.Namespace != nil && *ref.Namespace != "" {
			for _, msg := range apimachineryvalidation.ValidateNamespaceName(*ref.Namespace, false) {
				allErrs = append(allErrs, field.Invalid(refPath.Child("namespace"), *ref.Namespace, msg))
			}
		}
	}
	switch {
	case ref != nil && ref.Namespace != nil && *ref.Namespace != "":
		if spec.DataSource != nil {
			allErrs = append(allErrs, field.Invalid(fldPath, fldPath.Child("dataSource"), "may not be specified when dataSourceRef.namespace is specified"))
		}
	case spec.DataSource != nil && ref != nil:
		if !reflect.DeepEqual(spec.DataSource.APIGroup, ref.APIGroup) || spec.DataSource.Kind != ref.Kind || spec.DataSource.Name != ref.Name {
			allErrs = append(allErrs, field.Invalid(fldPath, fldPath.Child("dataSource"), "must match dataSourceRef"))
		}
	}
	return allErrs
}

// validateDataSourceRef: name and kind required, a core reference must be
// to a claim, a group must be a DNS subdomain.
func validateDataSourceRef(apiGroup *string, kind, name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	if kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	}
	group := ""
	if apiGroup != nil {
		group = *apiGroup
	}
	if group == "" && kind != "PersistentVolumeClaim" {
		allErrs = append(allErrs, field.Invalid(fldPath, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))
	}
	if group != "" {
		for _, msg := range validation.IsDNS1123Subdomain(group) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("apiGroup"), group, msg))
		}
	}
	return allErrs
}

// ValidatePersistentVolumeClaimUpdate checks an update of a claim's spec:
// it is immutable except that volumeName may be set once, the storage
// request of a bound claim may grow, its volumeAttributesClassName may
// change, and storageClassName may move from the beta annotation or from
// nil.
func ValidatePersistentVolumeClaimUpdate(pvc, old *corev1.PersistentVolumeClaim) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pvc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidatePersistentVolumeClaim(pvc)...)
	newClone, oldClone := pvc.DeepCopy(), old.DeepCopy()
	if old.Spec.VolumeName == "" {
		oldClone.Spec.VolumeName = newClone.Spec.VolumeName
	}
	if storageClassFromAnnotation(old, pvc) {
		newClone.Spec.StorageClassName = nil
		metav1.SetMetaDataAnnotation(&newClone.ObjectMeta, corev1.BetaStorageClassAnnotation, old.Annotations[corev1.BetaStorageClassAnnotation])
	} else {
		key := corev1.BetaStorageClassAnnotation
		if pvc.Annotations[key] != old.Annotations[key] {
			allErrs = append(allErrs, field.Invalid(field.NewPath("metadata").Child("annotations", key), pvc.Annotations[key], apimachineryvalidation.FieldImmutableErrorMsg))
		}
		if storageClassFromNil(old, pvc) {
			newClone.Spec.StorageClassName = oldClone.Spec.StorageClassName
		}
	}
	if pvc.Status.Phase == corev1.ClaimBound && newClone.Spec.Resources.Requests != nil {
		newClone.Spec.Resources.Requests[corev1.ResourceStorage] = old.Spec.Resources.Requests[corev1.ResourceStorage]
	}
	if pvc.Status.Phase == corev1.ClaimBound && newClone.Spec.VolumeAttributesClassName != nil {
		newClone.Spec.VolumeAttributesClassName = oldClone.Spec.VolumeAttributesClassName
	}
	if !equality.Semantic.DeepEqual(newClone.Spec, oldClone.Spec) {
		diff := cmp.Diff(oldClone.Spec, newClone.Spec)
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec"), fmt.Sprintf("%s\n%v", claimSpecImmutableMsg, diff)))
	}
	oldSize, newSize := old.Spec.Resources.Requests[corev1.ResourceStorage], pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	statusSize := old.Status.Capacity[corev1.ResourceStorage]
	// Shrinking is allowed down to above the recorded capacity, so that a
	// failed expansion can be retried smaller (RecoverVolumeExpansionFailure).
	if newSize.Cmp(oldSize) < 0 && newSize.Cmp(statusSize) <= 0 {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "resources", "requests", "storage"), "field can not be less than status.capacity"))
	}
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(pvc.Spec.VolumeMode, old.Spec.VolumeMode, field.NewPath("volumeMode"))...)
	if old.Spec.VolumeAttributesClassName != nil {
		vacPath := field.NewPath("spec", "volumeAttributesClassName")
		if pvc.Spec.VolumeAttributesClassName == nil {
			allErrs = append(allErrs, field.Forbidden(vacPath, "update from non-nil value to nil is forbidden"))
		} else if *pvc.Spec.VolumeAttributesClassName == "" {
			allErrs = append(allErrs, field.Forbidden(vacPath, "update from non-nil value to an empty string is forbidden"))
		}
	}
	return allErrs
}

// storageClassFromAnnotation: the old claim named its class in the beta
// annotation only, and the new one moves that same class to the field.
func storageClassFromAnnotation(old, pvc *corev1.PersistentVolumeClaim) bool {
	oldClass, oldHas := old.Annotations[corev1.BetaStorageClassAnnotation]
	newAnnotation, newHas := pvc.Annotations[corev1.BetaStorageClassAnnotation]
	return oldHas && old.Spec.StorageClassName == nil &&
		pvc.Spec.StorageClassName != nil && *pvc.Spec.StorageClassName == oldClass &&
		(!newHas || newAnnotation == oldClass)
}

// storageClassFromNil: a claim without a class may get one, if it agrees
// with the beta annotation when there is one.
func storageClassFromNil(old, pvc *corev1.PersistentVolumeClaim) bool {
	oldAnnotation, oldHas := old.Annotations[corev1.BetaStorageClassAnnotation]
	return pvc.Spec.StorageClassName != nil && old.Spec.StorageClassName == nil &&
		(!oldHas || *pvc.Spec.StorageClassName == oldAnnotation)
}

// ValidatePersistentVolumeClaimStatusUpdate checks a write of
// persistentvolumeclaims/status.
func ValidatePersistentVolumeClaimStatusUpdate(pvc, old *corev1.PersistentVolumeClaim) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&pvc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if pvc.ResourceVersion == "" {
		allErrs = append(allErrs, field.Required(field.NewPath("resourceVersion"), ""))
	}
	if len(pvc.Spec.AccessModes) == 0 {
		allErrs = append(allErrs, field.Required(field.NewPath("Spec", "accessModes"), ""))
	}
	capPath := field.NewPath("status", "capacity")
	for name, q := range pvc.Status.Capacity {
		allErrs = append(allErrs, checkBasicQuantity(q, capPath.Key(string(name)))...)
	}
	resizePath := field.NewPath("status", "allocatedResourceStatus")
	for name, s := range pvc.Status.AllocatedResourceStatuses {
		allErrs = append(allErrs, validateClaimResourceKey(string(name), resizePath)...)
		if !claimResizeStatuses.Has(s) {
			allErrs = append(allErrs, field.NotSupported(resizePath, name, sets.List(claimResizeStatuses)))
		}
	}
	allocPath := field.NewPath("status", "allocatedResources")
	for name, q := range pvc.Status.AllocatedResources {
		if errs := validateClaimResourceKey(string(name), allocPath); len(errs) > 0 {
			allErrs = append(allErrs, errs...)
			continue
		}
		if errs := checkBasicQuantity(q, allocPath.Key(string(name))); len(errs) > 0 {
			allErrs = append(allErrs, errs...)
		} else {
			allErrs = append(allErrs, checkResourceQuantity(corev1.ResourceStorage, q, allocPath.Key(string(name)))...)
		}
	}
	return allErrs
}

// validateClaimResourceKey: a qualified name, and storage when native.
func validateClaimResourceKey(value string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsQualifiedName(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	if len(allErrs) == 0 && resourceNameIsNative(corev1.ResourceName(value)) && value != string(corev1.ResourceStorage) {
		allErrs = append(allErrs, field.NotSupported(fldPath, value, []corev1.ResourceName{corev1.ResourceStorage}))
	}
	return allErrs
}
