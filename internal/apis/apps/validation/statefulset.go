package validation

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateStatefulSetName is the rule for stateful set names: a DNS label,
// since pod hostnames are built from it.
var ValidateStatefulSetName = apimachineryvalidation.NameIsDNSLabel

// statefulSetUpdateForbiddenMsg is upstream's message for a change to a
// spec field other than those an update may change.
const statefulSetUpdateForbiddenMsg = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"

// ValidateStatefulSet validates a stateful set on create.
func ValidateStatefulSet(ss *appsv1.StatefulSet) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&ss.ObjectMeta, true, ValidateStatefulSetName, field.NewPath("metadata"))
	return append(allErrs, ValidateStatefulSetSpec(&ss.Spec, field.NewPath("spec"))...)
}

// ValidateStatefulSetUpdate validates an update: metadata rules (the name
// is not rechecked), the new spec, and that only replicas, ordinals,
// template, updateStrategy, persistentVolumeClaimRetentionPolicy and
// minReadySeconds changed. The selector is therefore immutable too.
func ValidateStatefulSetUpdate(ss, old *appsv1.StatefulSet) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&ss.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateStatefulSetSpec(&ss.Spec, field.NewPath("spec"))...)

	spec := *ss.Spec.DeepCopy()
	spec.Replicas = old.Spec.Replicas
	spec.Template = old.Spec.Template
	spec.UpdateStrategy = old.Spec.UpdateStrategy
	spec.MinReadySeconds = old.Spec.MinReadySeconds
	spec.Ordinals = old.Spec.Ordinals
	spec.PersistentVolumeClaimRetentionPolicy = old.Spec.PersistentVolumeClaimRetentionPolicy
	// Everything else, volumeClaimTemplates, serviceName, selector,
	// podManagementPolicy and revisionHistoryLimit included, is fixed.
	if !equality.Semantic.DeepEqual(spec, old.Spec) {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec"), statefulSetUpdateForbiddenMsg))
	}
	return allErrs
}

// ValidateStatefulSetSpec validates a stateful set spec at fldPath. The
// pod spec itself is not validated, as upstream does not (only the
// template's labels and annotations).
func ValidateStatefulSetSpec(spec *appsv1.StatefulSetSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch spec.PodManagementPolicy {
	case "":
		allErrs = append(allErrs, field.Required(fldPath.Child("podManagementPolicy"), ""))
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	default:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("podManagementPolicy"), spec.PodManagementPolicy,
			fmt.Sprintf("must be '%s' or '%s'", appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement)))
	}
	allErrs = append(allErrs, validateStatefulSetUpdateStrategy(&spec.UpdateStrategy, fldPath.Child("updateStrategy"))...)
	allErrs = append(allErrs, validatePVCRetentionPolicy(spec.PersistentVolumeClaimRetentionPolicy, fldPath.Child("persistentVolumeClaimRetentionPolicy"))...)
	allErrs = append(allErrs, nonNegative(deref(spec.Replicas), fldPath.Child("replicas"))...)
	allErrs = append(allErrs, nonNegative(spec.MinReadySeconds, fldPath.Child("minReadySeconds"))...)
	if spec.Ordinals != nil {
		allErrs = append(allErrs, nonNegative(spec.Ordinals.Start, fldPath.Child("ordinals.start"))...)
	}
	allErrs = append(allErrs, validateSelector(spec.Selector, "statefulset", fldPath.Child("selector"))...)

	selector, err := metav1.LabelSelectorAsSelector(spec.Selector)
	if err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("selector"), spec.Selector, ""))
	} else {
		templatePath := fldPath.Child("template")
		allErrs = append(allErrs, templateMatchesSelector(selector, &spec.Template, templatePath)...)
		allErrs = append(allErrs, metav1validation.ValidateLabels(spec.Template.Labels, templatePath.Child("labels"))...)
		allErrs = append(allErrs, apimachineryvalidation.ValidateAnnotations(spec.Template.Annotations, templatePath.Child("annotations"))...)
	}
	return append(allErrs, restartAlwaysOnly(&spec.Template, "StatefulSet", fldPath.Child("template", "spec"))...)
}

func validateStatefulSetUpdateStrategy(s *appsv1.StatefulSetUpdateStrategy, fldPath *field.Path) field.ErrorList {
	switch s.Type {
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	case appsv1.OnDeleteStatefulSetStrategyType:
		if s.RollingUpdate != nil {
			return field.ErrorList{field.Invalid(fldPath.Child("rollingUpdate"), s.RollingUpdate,
				fmt.Sprintf("only allowed for updateStrategy '%s'", appsv1.RollingUpdateStatefulSetStrategyType))}
		}
	case appsv1.RollingUpdateStatefulSetStrategyType:
		if s.RollingUpdate != nil {
			return validateRollingUpdateStatefulSet(s.RollingUpdate, fldPath.Child("rollingUpdate"))
		}
	default:
		return field.ErrorList{field.Invalid(fldPath, *s, fmt.Sprintf("must be '%s' or '%s'",
			appsv1.RollingUpdateStatefulSetStrategyType, appsv1.OnDeleteStatefulSetStrategyType))}
	}
	return nil
}

func validateRollingUpdateStatefulSet(ru *appsv1.RollingUpdateStatefulSetStrategy, fldPath *field.Path) field.ErrorList {
	allErrs := nonNegative(deref(ru.Partition), fldPath.Child("partition"))
	if ru.MaxUnavailable != nil {
		p := fldPath.Child("maxUnavailable")
		allErrs = append(allErrs, ValidatePositiveIntOrPercent(*ru.MaxUnavailable, p)...)
		if intOrPercentValue(*ru.MaxUnavailable) == 0 {
			allErrs = append(allErrs, field.Invalid(p, *ru.MaxUnavailable, "cannot be 0"))
		}
		allErrs = append(allErrs, isNotMoreThan100Percent(*ru.MaxUnavailable, p)...)
	}
	return allErrs
}

func validatePVCRetentionPolicy(p *appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy, fldPath *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	allErrs := validatePVCRetentionPolicyType(p.WhenDeleted, fldPath.Child("whenDeleted"))
	return append(allErrs, validatePVCRetentionPolicyType(p.WhenScaled, fldPath.Child("whenScaled"))...)
}

func validatePVCRetentionPolicyType(t appsv1.PersistentVolumeClaimRetentionPolicyType, fldPath *field.Path) field.ErrorList {
	switch t {
	case appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType:
		return nil
	}
	valid := []string{string(appsv1.RetainPersistentVolumeClaimRetentionPolicyType), string(appsv1.DeletePersistentVolumeClaimRetentionPolicyType)}
	return field.ErrorList{field.NotSupported(fldPath, t, valid)}
}

// ValidateStatefulSetStatusUpdate validates a write of the status
// subresource.
func ValidateStatefulSetStatusUpdate(ss, old *appsv1.StatefulSet) field.ErrorList {
	allErrs := ValidateStatefulSetStatus(&ss.Status, field.NewPath("status"))
	allErrs = append(allErrs, corevalidation.ValidateObjectMetaUpdate(&ss.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	return append(allErrs, collisionCountNotDecremented(ss.Status.CollisionCount, old.Status.CollisionCount, field.NewPath("status", "collisionCount"))...)
}

// ValidateStatefulSetStatus checks the counts are non-negative and
// consistent.
func ValidateStatefulSetStatus(s *appsv1.StatefulSetStatus, fldPath *field.Path) field.ErrorList {
	allErrs := nonNegative(s.Replicas, fldPath.Child("replicas"))
	allErrs = append(allErrs, nonNegative(s.ReadyReplicas, fldPath.Child("readyReplicas"))...)
	allErrs = append(allErrs, nonNegative(s.CurrentReplicas, fldPath.Child("currentReplicas"))...)
	allErrs = append(allErrs, nonNegative(s.UpdatedReplicas, fldPath.Child("updatedReplicas"))...)
	allErrs = append(allErrs, nonNegative(s.AvailableReplicas, fldPath.Child("availableReplicas"))...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(s.ObservedGeneration, fldPath.Child("observedGeneration"))...)
	if s.CollisionCount != nil {
		allErrs = append(allErrs, nonNegative(*s.CollisionCount, fldPath.Child("collisionCount"))...)
	}
	for _, c := range []struct {
		name  string
		value int32
	}{{"readyReplicas", s.ReadyReplicas}, {"currentReplicas", s.CurrentReplicas}, {"updatedReplicas", s.UpdatedReplicas}, {"availableReplicas", s.AvailableReplicas}} {
		if c.value > s.Replicas {
			allErrs = append(allErrs, field.Invalid(fldPath.Child(c.name), c.value, cannotExceedReplicasMsg))
		}
	}
	if s.AvailableReplicas > s.ReadyReplicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than status.readyReplicas"))
	}
	return allErrs
}
