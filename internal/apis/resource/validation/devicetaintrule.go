package validation

import (
	resourcev1 "k8s.io/api/resource/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// validDeviceTaintEffects are the effects a taint may name.
var validDeviceTaintEffects = sets.New(resourcev1.DeviceTaintEffectNone, resourcev1.DeviceTaintEffectNoSchedule, resourcev1.DeviceTaintEffectNoExecute)

// ValidateDeviceTaintRule checks a new rule: its selector and its taint.
func ValidateDeviceTaintRule(rule *resourcev1.DeviceTaintRule) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&rule.ObjectMeta, false, ValidateName, field.NewPath("metadata"))
	return append(allErrs, validateDeviceTaintRuleSpec(&rule.Spec, nil, field.NewPath("spec"))...)
}

// ValidateDeviceTaintRuleUpdate checks an update. An effect that was
// already stored is not checked again, so effects added by later releases
// survive updates.
func ValidateDeviceTaintRuleUpdate(rule, old *resourcev1.DeviceTaintRule) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&rule.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateDeviceTaintRuleSpec(&rule.Spec, &old.Spec, field.NewPath("spec"))...)
}

// ValidateDeviceTaintRuleStatusUpdate checks a status write: well-formed
// conditions, at most DeviceTaintRuleStatusMaxConditions of them.
func ValidateDeviceTaintRuleStatusUpdate(rule, old *resourcev1.DeviceTaintRule) field.ErrorList {
	condPath := field.NewPath("status", "conditions")
	allErrs := corevalidation.ValidateObjectMetaUpdate(&rule.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, metav1validation.ValidateConditions(rule.Status.Conditions, condPath)...)
	if n := len(rule.Status.Conditions); n > resourcev1.DeviceTaintRuleStatusMaxConditions {
		allErrs = append(allErrs, field.TooMany(condPath, n, resourcev1.DeviceTaintRuleStatusMaxConditions))
	}
	return allErrs
}

func validateDeviceTaintRuleSpec(spec, old *resourcev1.DeviceTaintRuleSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if s := spec.DeviceSelector; s != nil {
		selPath := fldPath.Child("deviceSelector")
		if s.Driver != nil {
			allErrs = append(allErrs, validateDriverName(*s.Driver, selPath.Child("driver"))...)
		}
		if s.Pool != nil {
			allErrs = append(allErrs, validatePoolName(*s.Pool, selPath.Child("pool"))...)
		}
		if s.Device != nil {
			allErrs = append(allErrs, validateDNSLabel(*s.Device, selPath.Child("device"))...)
		}
	}
	var oldTaint *resourcev1.DeviceTaint
	if old != nil {
		oldTaint = &old.Taint
	}
	return append(allErrs, validateDeviceTaint(spec.Taint, oldTaint, fldPath.Child("taint"))...)
}

// validateDeviceTaint requires a label-name key, a label-value value and
// a known effect.
func validateDeviceTaint(taint resourcev1.DeviceTaint, old *resourcev1.DeviceTaint, fldPath *field.Path) field.ErrorList {
	allErrs := metav1validation.ValidateLabelName(taint.Key, fldPath.Child("key"))
	if taint.Value != "" {
		for _, msg := range validation.IsValidLabelValue(taint.Value) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("value"), taint.Value, msg))
		}
	}
	if old == nil || old.Effect != taint.Effect {
		switch {
		case taint.Effect == "":
			allErrs = append(allErrs, field.Required(fldPath.Child("effect"), ""))
		case !validDeviceTaintEffects.Has(taint.Effect):
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("effect"), taint.Effect, sets.List(validDeviceTaintEffects)))
		}
	}
	return allErrs
}
