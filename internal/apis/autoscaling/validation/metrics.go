package validation

import (
	"slices"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	pathvalidation "k8s.io/apimachinery/pkg/api/validation/path"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// metricSources lists the metric source types in upstream's sorted order.
var metricSources = []autoscalingv2.MetricSourceType{
	autoscalingv2.ContainerResourceMetricSourceType,
	autoscalingv2.ExternalMetricSourceType,
	autoscalingv2.ObjectMetricSourceType,
	autoscalingv2.PodsMetricSourceType,
	autoscalingv2.ResourceMetricSourceType,
}

func validateMetrics(metrics []autoscalingv2.MetricSpec, fldPath *field.Path, minReplicas *int32, opts Options) field.ErrorList {
	var allErrs field.ErrorList
	hasObjectOrExternal := false
	for i := range metrics {
		allErrs = append(allErrs, validateMetricSpec(&metrics[i], fldPath.Index(i), opts)...)
		switch metrics[i].Type {
		case autoscalingv2.ObjectMetricSourceType, autoscalingv2.ExternalMetricSourceType:
			hasObjectOrExternal = true
		}
	}
	if minReplicas != nil && *minReplicas == 0 && !hasObjectOrExternal {
		allErrs = append(allErrs, field.Forbidden(fldPath, "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	return allErrs
}

// validateMetricSpec checks that exactly the source the type names is set,
// and that source.
func validateMetricSpec(spec *autoscalingv2.MetricSpec, fldPath *field.Path, opts Options) field.ErrorList {
	var allErrs field.ErrorList
	if len(spec.Type) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must specify a metric source type"))
	}
	// The sources present, in the order upstream checks them; only the
	// first is validated in depth.
	present := []struct {
		name  string
		set   bool
		check func() field.ErrorList
	}{
		{"object", spec.Object != nil, func() field.ErrorList { return validateObjectSource(spec.Object, fldPath.Child("object"), opts) }},
		{"external", spec.External != nil, func() field.ErrorList { return validateExternalSource(spec.External, fldPath.Child("external")) }},
		{"pods", spec.Pods != nil, func() field.ErrorList { return validatePodsSource(spec.Pods, fldPath.Child("pods")) }},
		{"resource", spec.Resource != nil, func() field.ErrorList { return validateResourceSource(spec.Resource, fldPath.Child("resource")) }},
		{"containerResource", spec.ContainerResource != nil, func() field.ErrorList {
			return validateContainerResourceSource(spec.ContainerResource, fldPath.Child("containerResource"))
		}},
	}
	var setNames []string
	for _, p := range present {
		if !p.set {
			continue
		}
		if len(setNames) == 0 {
			allErrs = append(allErrs, p.check()...)
		}
		setNames = append(setNames, p.name)
	}
	expected := map[autoscalingv2.MetricSourceType]string{
		autoscalingv2.ObjectMetricSourceType:            "object",
		autoscalingv2.PodsMetricSourceType:              "pods",
		autoscalingv2.ResourceMetricSourceType:          "resource",
		autoscalingv2.ExternalMetricSourceType:          "external",
		autoscalingv2.ContainerResourceMetricSourceType: "containerResource",
	}
	expectedField, known := expected[spec.Type]
	if !known {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), spec.Type, metricSources))
	} else if !slices.Contains(setNames, expectedField) {
		allErrs = append(allErrs, field.Required(fldPath.Child(expectedField), "must populate information for the given metric source"))
	}
	if len(setNames) != 1 {
		for _, name := range setNames {
			if name != expectedField {
				allErrs = append(allErrs, field.Forbidden(fldPath.Child(name), "must populate the given metric source only"))
			}
		}
	}
	return allErrs
}

func validateObjectSource(src *autoscalingv2.ObjectMetricSource, fldPath *field.Path, opts Options) field.ErrorList {
	allErrs := ValidateCrossVersionObjectReference(src.DescribedObject, fldPath.Child("describedObject"), opts.ObjectMetrics)
	allErrs = append(allErrs, validateMetricIdentifier(src.Metric, fldPath.Child("metric"))...)
	allErrs = append(allErrs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("target").Child("averageValue"), "must set either a target value or averageValue"))
	}
	return allErrs
}

func validateExternalSource(src *autoscalingv2.ExternalMetricSource, fldPath *field.Path) field.ErrorList {
	allErrs := validateMetricIdentifier(src.Metric, fldPath.Child("metric"))
	allErrs = append(allErrs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	if src.Target.Value == nil && src.Target.AverageValue == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("target").Child("averageValue"), "must set either a target value for metric or a per-pod target"))
	}
	if src.Target.Value != nil && src.Target.AverageValue != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("target").Child("value"), "may not set both a target value for metric and a per-pod target"))
	}
	return allErrs
}

func validatePodsSource(src *autoscalingv2.PodsMetricSource, fldPath *field.Path) field.ErrorList {
	allErrs := validateMetricIdentifier(src.Metric, fldPath.Child("metric"))
	allErrs = append(allErrs, validateMetricTarget(src.Target, fldPath.Child("target"))...)
	if src.Target.AverageValue == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("target").Child("averageValue"), "must specify a positive target averageValue"))
	}
	return allErrs
}

func validateResourceSource(src *autoscalingv2.ResourceMetricSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(src.Name) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), "must specify a resource name"))
	}
	return append(allErrs, validateUtilizationOrAverage(src.Target, fldPath.Child("target"))...)
}

func validateContainerResourceSource(src *autoscalingv2.ContainerResourceMetricSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(src.Name) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), "must specify a resource name"))
	}
	if len(src.Container) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("container"), "must specify a container"))
	} else {
		for _, msg := range utilvalidation.IsDNS1123Label(src.Container) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("container"), src.Container, msg))
		}
	}
	return append(allErrs, validateUtilizationOrAverage(src.Target, fldPath.Child("target"))...)
}

// validateUtilizationOrAverage: resource metrics target either an
// utilization or an average value.
func validateUtilizationOrAverage(t autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	allErrs := validateMetricTarget(t, fldPath)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("averageUtilization"), "must set either a target raw value or a target utilization"))
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("averageValue"), "may not set both a target raw value and a target utilization"))
	}
	return allErrs
}

func validateMetricTarget(t autoscalingv2.MetricTarget, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(t.Type) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), "must specify a metric target type"))
	}
	switch t.Type {
	case autoscalingv2.UtilizationMetricType, autoscalingv2.ValueMetricType, autoscalingv2.AverageValueMetricType:
	default:
		allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	if t.Value != nil && t.Value.Sign() != 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("value"), t.Value.String(), "must be positive"))
	}
	if t.AverageValue != nil && t.AverageValue.Sign() != 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("averageValue"), t.AverageValue.String(), "must be positive"))
	}
	if t.AverageUtilization != nil && *t.AverageUtilization < 1 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("averageUtilization"), *t.AverageUtilization, "must be greater than 0"))
	}
	return allErrs
}

func validateMetricIdentifier(id autoscalingv2.MetricIdentifier, fldPath *field.Path) field.ErrorList {
	if len(id.Name) == 0 {
		return field.ErrorList{field.Required(fldPath.Child("name"), "must specify a metric name")}
	}
	var allErrs field.ErrorList
	for _, msg := range pathvalidation.IsValidPathSegmentName(id.Name) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), id.Name, msg))
	}
	return allErrs
}
