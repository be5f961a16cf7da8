package validation

import (
	appsv1 "k8s.io/api/apps/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateDaemonSetName is the rule for daemon set names.
var ValidateDaemonSetName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateDaemonSet validates a daemon set on create.
func ValidateDaemonSet(ds *appsv1.DaemonSet) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&ds.ObjectMeta, true, ValidateDaemonSetName, field.NewPath("metadata"))
	return append(allErrs, ValidateDaemonSetSpec(&ds.Spec, field.NewPath("spec"))...)
}

// ValidateDaemonSetUpdate validates an update: metadata rules, the new
// spec, and the selector, which apps/v1 makes immutable.
func ValidateDaemonSetUpdate(ds, old *appsv1.DaemonSet) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&ds.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateDaemonSetSpec(&ds.Spec, field.NewPath("spec"))...)
	return append(allErrs, apimachineryvalidation.ValidateImmutableField(ds.Spec.Selector, old.Spec.Selector, field.NewPath("spec", "selector"))...)
}

// ValidateDaemonSetSpec validates a daemon set spec at fldPath.
func ValidateDaemonSetSpec(spec *appsv1.DaemonSetSpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateSelector(spec.Selector, "daemonset", fldPath.Child("selector"))
	allErrs = append(allErrs, validateControllerTemplate(spec.Selector, &spec.Template, "DaemonSet", fldPath)...)
	allErrs = append(allErrs, nonNegative(spec.MinReadySeconds, fldPath.Child("minReadySeconds"))...)
	allErrs = append(allErrs, validateDaemonSetUpdateStrategy(&spec.UpdateStrategy, fldPath.Child("updateStrategy"))...)
	if spec.RevisionHistoryLimit != nil {
		allErrs = append(allErrs, nonNegative(*spec.RevisionHistoryLimit, fldPath.Child("revisionHistoryLimit"))...)
	}
	return allErrs
}

func validateDaemonSetUpdateStrategy(s *appsv1.DaemonSetUpdateStrategy, fldPath *field.Path) field.ErrorList {
	switch s.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
		return nil
	case appsv1.RollingUpdateDaemonSetStrategyType:
		if s.RollingUpdate == nil {
			return field.ErrorList{field.Required(fldPath.Child("rollingUpdate"), "")}
		}
		return validateRollingUpdateDaemonSet(s.RollingUpdate, fldPath.Child("rollingUpdate"))
	}
	valid := []string{string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)}
	return field.ErrorList{field.NotSupported(fldPath, *s, valid)}
}

// validateRollingUpdateDaemonSet: exactly one of maxUnavailable and
// maxSurge is non-zero.
func validateRollingUpdateDaemonSet(ru *appsv1.RollingUpdateDaemonSet, fldPath *field.Path) field.ErrorList {
	maxUnavailable, maxSurge := intOrZero(ru.MaxUnavailable), intOrZero(ru.MaxSurge)
	allErrs := ValidatePositiveIntOrPercent(maxUnavailable, fldPath.Child("maxUnavailable"))
	allErrs = append(allErrs, ValidatePositiveIntOrPercent(maxSurge, fldPath.Child("maxSurge"))...)
	allErrs = append(allErrs, isNotMoreThan100Percent(maxUnavailable, fldPath.Child("maxUnavailable"))...)
	allErrs = append(allErrs, isNotMoreThan100Percent(maxSurge, fldPath.Child("maxSurge"))...)
	hasUnavailable, hasSurge := intOrPercentValue(maxUnavailable) != 0, intOrPercentValue(maxSurge) != 0
	switch {
	case hasUnavailable && hasSurge:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("maxSurge"), maxSurge, "may not be set when maxUnavailable is non-zero"))
	case !hasUnavailable && !hasSurge:
		allErrs = append(allErrs, field.Required(fldPath.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
	}
	return allErrs
}

// ValidateDaemonSetStatusUpdate validates a write of the status
// subresource.
func ValidateDaemonSetStatusUpdate(ds, old *appsv1.DaemonSet) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&ds.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateDaemonSetStatus(&ds.Status, field.NewPath("status"))...)
	return append(allErrs, collisionCountNotDecremented(ds.Status.CollisionCount, old.Status.CollisionCount, field.NewPath("status", "collisionCount"))...)
}

func validateDaemonSetStatus(s *appsv1.DaemonSetStatus, fldPath *field.Path) field.ErrorList {
	allErrs := nonNegative(s.CurrentNumberScheduled, fldPath.Child("currentNumberScheduled"))
	allErrs = append(allErrs, nonNegative(s.NumberMisscheduled, fldPath.Child("numberMisscheduled"))...)
	allErrs = append(allErrs, nonNegative(s.DesiredNumberScheduled, fldPath.Child("desiredNumberScheduled"))...)
	allErrs = append(allErrs, nonNegative(s.NumberReady, fldPath.Child("numberReady"))...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(s.ObservedGeneration, fldPath.Child("observedGeneration"))...)
	allErrs = append(allErrs, nonNegative(s.UpdatedNumberScheduled, fldPath.Child("updatedNumberScheduled"))...)
	allErrs = append(allErrs, nonNegative(s.NumberAvailable, fldPath.Child("numberAvailable"))...)
	allErrs = append(allErrs, nonNegative(s.NumberUnavailable, fldPath.Child("numberUnavailable"))...)
	if s.CollisionCount != nil {
		allErrs = append(allErrs, nonNegative(*s.CollisionCount, fldPath.Child("collisionCount"))...)
	}
	return allErrs
}
