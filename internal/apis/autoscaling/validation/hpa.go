// Package validation checks autoscaling/v2 HorizontalPodAutoscalers (the
// stored version, whatever version a client writes) the way
// kube-apiserver does: the same rules, field paths and messages.
package validation

import (
	"errors"
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	pathvalidation "k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// Upper bounds of a scaling policy's period and a stabilization window.
const (
	MaxPeriodSeconds              = 1800
	MaxStabilizationWindowSeconds = 3600
)

// ValidateHorizontalPodAutoscalerName is the name rule of HPAs.
var ValidateHorizontalPodAutoscalerName = apimachineryvalidation.NameIsDNSSubdomain

// RefOptions relaxes the apiVersion check of an object reference.
type RefOptions struct {
	// AllowInvalidAPIVersion skips the check (an update that keeps the
	// stored reference).
	AllowInvalidAPIVersion bool
	// AllowEmptyAPIGroup accepts a core group version ("v1").
	AllowEmptyAPIGroup bool
}

// Options says what an HPA's validation allows.
type Options struct {
	// MinReplicasLowerBound is 1, or 0 for an HPA already scaled to zero.
	MinReplicasLowerBound int32
	// ScaleTargetRef and ObjectMetrics relax the apiVersion checks of the
	// scale target and of Object metrics' described objects.
	ScaleTargetRef, ObjectMetrics RefOptions
}

// OptionsFor returns the options of a create (old nil) or an update.
func OptionsFor(hpa, old *autoscalingv2.HorizontalPodAutoscaler) Options {
	opts := Options{MinReplicasLowerBound: 1, ObjectMetrics: RefOptions{AllowEmptyAPIGroup: true}}
	if old != nil && old.Spec.MinReplicas != nil && *old.Spec.MinReplicas == 0 {
		opts.MinReplicasLowerBound = 0
	}
	ref := hpa.Spec.ScaleTargetRef
	switch {
	case old != nil && old.Spec.ScaleTargetRef.APIVersion == ref.APIVersion && old.Spec.ScaleTargetRef.Kind == ref.Kind:
		opts.ScaleTargetRef.AllowInvalidAPIVersion = true
	case ref.Kind == "ReplicationController":
		// The one scalable kind of the core group.
		opts.ScaleTargetRef.AllowEmptyAPIGroup = true
	}
	if old != nil {
		for _, m := range old.Spec.Metrics {
			if m.Type == autoscalingv2.ObjectMetricSourceType && m.Object != nil && validateAPIVersion(m.Object.DescribedObject, opts.ObjectMetrics) != nil {
				opts.ObjectMetrics.AllowInvalidAPIVersion = true
				break
			}
		}
	}
	return opts
}

// ValidateHorizontalPodAutoscaler checks a new HPA.
func ValidateHorizontalPodAutoscaler(hpa *autoscalingv2.HorizontalPodAutoscaler, opts Options) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&hpa.ObjectMeta, true, ValidateHorizontalPodAutoscalerName, field.NewPath("metadata"))
	return append(allErrs, validateSpec(&hpa.Spec, field.NewPath("spec"), opts)...)
}

// ValidateHorizontalPodAutoscalerUpdate checks an update.
func ValidateHorizontalPodAutoscalerUpdate(hpa, old *autoscalingv2.HorizontalPodAutoscaler, opts Options) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&hpa.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateSpec(&hpa.Spec, field.NewPath("spec"), opts)...)
}

// ValidateHorizontalPodAutoscalerStatusUpdate checks a status write.
func ValidateHorizontalPodAutoscalerStatusUpdate(hpa, old *autoscalingv2.HorizontalPodAutoscaler) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&hpa.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	status := field.NewPath("status")
	allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(hpa.Status.CurrentReplicas), status.Child("currentReplicas"))...)
	return append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(hpa.Status.DesiredReplicas), status.Child("desiredReplicas"))...)
}

func validateSpec(spec *autoscalingv2.HorizontalPodAutoscalerSpec, fldPath *field.Path, opts Options) field.ErrorList {
	var allErrs field.ErrorList
	if spec.MinReplicas != nil && *spec.MinReplicas < opts.MinReplicasLowerBound {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("minReplicas"), *spec.MinReplicas,
			fmt.Sprintf("must be greater than or equal to %d", opts.MinReplicasLowerBound)))
	}
	if spec.MaxReplicas < 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("maxReplicas"), spec.MaxReplicas, "must be greater than 0"))
	}
	if spec.MinReplicas != nil && spec.MaxReplicas < *spec.MinReplicas {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("maxReplicas"), spec.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	allErrs = append(allErrs, ValidateCrossVersionObjectReference(spec.ScaleTargetRef, fldPath.Child("scaleTargetRef"), opts.ScaleTargetRef)...)
	allErrs = append(allErrs, validateMetrics(spec.Metrics, fldPath.Child("metrics"), spec.MinReplicas, opts)...)
	return append(allErrs, validateBehavior(spec.Behavior, fldPath.Child("behavior"))...)
}

// ValidateCrossVersionObjectReference checks a reference to a scalable
// or described object: kind and name are path segments, and apiVersion a
// group version.
func ValidateCrossVersionObjectReference(ref autoscalingv2.CrossVersionObjectReference, fldPath *field.Path, opts RefOptions) field.ErrorList {
	var allErrs field.ErrorList
	for _, f := range []struct{ name, value string }{{"kind", ref.Kind}, {"name", ref.Name}} {
		if len(f.value) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child(f.name), ""))
			continue
		}
		for _, msg := range pathvalidation.IsValidPathSegmentName(f.value) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child(f.name), f.value, msg))
		}
	}
	if err := validateAPIVersion(ref, opts); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiVersion"), ref.APIVersion, err.Error()))
	}
	return allErrs
}

func validateAPIVersion(ref autoscalingv2.CrossVersionObjectReference, opts RefOptions) error {
	if opts.AllowInvalidAPIVersion {
		return nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return err
	}
	if gv.Group == "" && !opts.AllowEmptyAPIGroup {
		return errors.New("apiVersion must specify API group")
	}
	return nil
}

func validateBehavior(b *autoscalingv2.HorizontalPodAutoscalerBehavior, fldPath *field.Path) field.ErrorList {
	if b == nil {
		return nil
	}
	allErrs := validateScalingRules(b.ScaleUp, fldPath.Child("scaleUp"))
	return append(allErrs, validateScalingRules(b.ScaleDown, fldPath.Child("scaleDown"))...)
}

func validateScalingRules(rules *autoscalingv2.HPAScalingRules, fldPath *field.Path) field.ErrorList {
	if rules == nil {
		return nil
	}
	var allErrs field.ErrorList
	if w := rules.StabilizationWindowSeconds; w != nil {
		if *w < 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("stabilizationWindowSeconds"), *w, "must be greater than or equal to zero"))
		}
		if *w > MaxStabilizationWindowSeconds {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("stabilizationWindowSeconds"), *w,
				fmt.Sprintf("must be less than or equal to %v", MaxStabilizationWindowSeconds)))
		}
	}
	if p := rules.SelectPolicy; p != nil {
		switch *p {
		case autoscalingv2.MaxChangePolicySelect, autoscalingv2.MinChangePolicySelect, autoscalingv2.DisabledPolicySelect:
		default:
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("selectPolicy"), *p, []autoscalingv2.ScalingPolicySelect{
				autoscalingv2.DisabledPolicySelect, autoscalingv2.MaxChangePolicySelect, autoscalingv2.MinChangePolicySelect}))
		}
	}
	policiesPath := fldPath.Child("policies")
	if len(rules.Policies) == 0 {
		allErrs = append(allErrs, field.Required(policiesPath, "must specify at least one Policy"))
	}
	for i, p := range rules.Policies {
		allErrs = append(allErrs, validateScalingPolicy(p, policiesPath.Index(i))...)
	}
	if rules.Tolerance != nil && rules.Tolerance.Sign() < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("tolerance"), rules.Tolerance.String(), "must be greater than or equal to 0"))
	}
	return allErrs
}

func validateScalingPolicy(p autoscalingv2.HPAScalingPolicy, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if p.Type != autoscalingv2.PodsScalingPolicy && p.Type != autoscalingv2.PercentScalingPolicy {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), p.Type,
			[]autoscalingv2.HPAScalingPolicyType{autoscalingv2.PercentScalingPolicy, autoscalingv2.PodsScalingPolicy}))
	}
	if p.Value <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("value"), p.Value, "must be greater than zero"))
	}
	if p.PeriodSeconds <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("periodSeconds"), p.PeriodSeconds, "must be greater than zero"))
	}
	if p.PeriodSeconds > MaxPeriodSeconds {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("periodSeconds"), p.PeriodSeconds,
			fmt.Sprintf("must be less than or equal to %v", MaxPeriodSeconds)))
	}
	return allErrs
}
