package validation

import (
	appsv1 "k8s.io/api/apps/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateDeploymentName is the rule for deployment names.
var ValidateDeploymentName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateDeployment validates a deployment on create.
func ValidateDeployment(d *appsv1.Deployment) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&d.ObjectMeta, true, ValidateDeploymentName, field.NewPath("metadata"))
	return append(allErrs, ValidateDeploymentSpec(&d.Spec, field.NewPath("spec"))...)
}

// ValidateDeploymentUpdate validates an update: metadata rules, the new
// spec, and the selector, which apps/v1 makes immutable.
func ValidateDeploymentUpdate(d, old *appsv1.Deployment) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateDeploymentSpec(&d.Spec, field.NewPath("spec"))...)
	return append(allErrs, apimachineryvalidation.ValidateImmutableField(d.Spec.Selector, old.Spec.Selector, field.NewPath("spec", "selector"))...)
}

// ValidateDeploymentSpec validates a deployment spec at fldPath.
func ValidateDeploymentSpec(spec *appsv1.DeploymentSpec, fldPath *field.Path) field.ErrorList {
	allErrs := nonNegative(deref(spec.Replicas), fldPath.Child("replicas"))
	allErrs = append(allErrs, validateSelector(spec.Selector, "deployment", fldPath.Child("selector"))...)
	allErrs = append(allErrs, validateControllerTemplate(spec.Selector, &spec.Template, "ReplicaSet", fldPath)...)
	allErrs = append(allErrs, ValidateDeploymentStrategy(&spec.Strategy, fldPath.Child("strategy"))...)
	allErrs = append(allErrs, nonNegative(spec.MinReadySeconds, fldPath.Child("minReadySeconds"))...)
	if spec.RevisionHistoryLimit != nil {
		allErrs = append(allErrs, nonNegative(*spec.RevisionHistoryLimit, fldPath.Child("revisionHistoryLimit"))...)
	}
	if spec.ProgressDeadlineSeconds != nil {
		allErrs = append(allErrs, nonNegative(*spec.ProgressDeadlineSeconds, fldPath.Child("progressDeadlineSeconds"))...)
		if *spec.ProgressDeadlineSeconds <= spec.MinReadySeconds {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("progressDeadlineSeconds"), *spec.ProgressDeadlineSeconds, "must be greater than minReadySeconds"))
		}
	}
	return allErrs
}

// ValidateDeploymentStrategy validates the rollout strategy.
func ValidateDeploymentStrategy(strategy *appsv1.DeploymentStrategy, fldPath *field.Path) field.ErrorList {
	switch strategy.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if strategy.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(fldPath.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		if strategy.RollingUpdate == nil {
			return field.ErrorList{field.Required(fldPath.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		return validateRollingUpdateDeployment(strategy.RollingUpdate, fldPath.Child("rollingUpdate"))
	default:
		valid := []string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)}
		return field.ErrorList{field.NotSupported(fldPath, *strategy, valid)}
	}
	return nil
}

func validateRollingUpdateDeployment(ru *appsv1.RollingUpdateDeployment, fldPath *field.Path) field.ErrorList {
	maxUnavailable, maxSurge := intOrZero(ru.MaxUnavailable), intOrZero(ru.MaxSurge)
	allErrs := ValidatePositiveIntOrPercent(maxUnavailable, fldPath.Child("maxUnavailable"))
	allErrs = append(allErrs, ValidatePositiveIntOrPercent(maxSurge, fldPath.Child("maxSurge"))...)
	if intOrPercentValue(maxUnavailable) == 0 && intOrPercentValue(maxSurge) == 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("maxUnavailable"), maxUnavailable, "may not be 0 when `maxSurge` is 0"))
	}
	return append(allErrs, isNotMoreThan100Percent(maxUnavailable, fldPath.Child("maxUnavailable"))...)
}

// ValidateDeploymentStatusUpdate validates a write of the status
// subresource.
func ValidateDeploymentStatusUpdate(d, old *appsv1.Deployment) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	fldPath := field.NewPath("status")
	allErrs = append(allErrs, ValidateDeploymentStatus(&d.Status, fldPath)...)
	return append(allErrs, collisionCountNotDecremented(d.Status.CollisionCount, old.Status.CollisionCount, fldPath.Child("collisionCount"))...)
}

// ValidateDeploymentStatus checks the counts are non-negative and
// consistent.
func ValidateDeploymentStatus(s *appsv1.DeploymentStatus, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateNonnegativeField(s.ObservedGeneration, fldPath.Child("observedGeneration"))
	allErrs = append(allErrs, nonNegative(s.Replicas, fldPath.Child("replicas"))...)
	allErrs = append(allErrs, nonNegative(s.UpdatedReplicas, fldPath.Child("updatedReplicas"))...)
	allErrs = append(allErrs, nonNegative(s.ReadyReplicas, fldPath.Child("readyReplicas"))...)
	allErrs = append(allErrs, nonNegative(s.AvailableReplicas, fldPath.Child("availableReplicas"))...)
	allErrs = append(allErrs, nonNegative(s.UnavailableReplicas, fldPath.Child("unavailableReplicas"))...)
	if s.CollisionCount != nil {
		allErrs = append(allErrs, nonNegative(*s.CollisionCount, fldPath.Child("collisionCount"))...)
	}
	if s.UpdatedReplicas > s.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("updatedReplicas"), s.UpdatedReplicas, cannotExceedReplicasMsg))
	}
	if s.ReadyReplicas > s.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("readyReplicas"), s.ReadyReplicas, cannotExceedReplicasMsg))
	}
	if s.AvailableReplicas > s.Replicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("availableReplicas"), s.AvailableReplicas, cannotExceedReplicasMsg))
	}
	if s.AvailableReplicas > s.ReadyReplicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("availableReplicas"), s.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	return allErrs
}
