package validation

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const weightRangeMsg = "must be in the range 1-100"

// validatePodAffinity checks node affinity (selector terms, operators
// and values, preference weights) and pod (anti-)affinity terms
// (topologyKey, namespaces, label selectors, weights) as upstream.
func validatePodAffinity(a *corev1.Affinity, fldPath *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var allErrs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		p := fldPath.Child("nodeAffinity")
		if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
			allErrs = append(allErrs, validateNodeSelector(req, p.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			tp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			if t.Weight <= 0 || t.Weight > 100 {
				allErrs = append(allErrs, field.Invalid(tp.Child("weight"), t.Weight, weightRangeMsg))
			}
			allErrs = append(allErrs, validateNodeSelectorTerm(t.Preference, tp.Child("preference"))...)
		}
	}
	podTerms := func(pa *corev1.PodAffinity, anti *corev1.PodAntiAffinity, p *field.Path) {
		var req []corev1.PodAffinityTerm
		var pref []corev1.WeightedPodAffinityTerm
		if pa != nil {
			req, pref = pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution
		} else {
			req, pref = anti.RequiredDuringSchedulingIgnoredDuringExecution, anti.PreferredDuringSchedulingIgnoredDuringExecution
		}
		for i, t := range req {
			allErrs = append(allErrs, validatePodAffinityTerm(t, p.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
		}
		for i, t := range pref {
			tp := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			if t.Weight <= 0 || t.Weight > 100 {
				allErrs = append(allErrs, field.Invalid(tp.Child("weight"), t.Weight, weightRangeMsg))
			}
			allErrs = append(allErrs, validatePodAffinityTerm(t.PodAffinityTerm, tp.Child("podAffinityTerm"))...)
		}
	}
	if a.PodAffinity != nil {
		podTerms(a.PodAffinity, nil, fldPath.Child("podAffinity"))
	}
	if a.PodAntiAffinity != nil {
		podTerms(nil, a.PodAntiAffinity, fldPath.Child("podAntiAffinity"))
	}
	return allErrs
}

func validateNodeSelector(ns *corev1.NodeSelector, fldPath *field.Path) field.ErrorList {
	termsPath := fldPath.Child("nodeSelectorTerms")
	if len(ns.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(termsPath, "must have at least one node selector term")}
	}
	var allErrs field.ErrorList
	for i, t := range ns.NodeSelectorTerms {
		allErrs = append(allErrs, validateNodeSelectorTerm(t, termsPath.Index(i))...)
	}
	return allErrs
}

func validateNodeSelectorTerm(t corev1.NodeSelectorTerm, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, r := range t.MatchExpressions {
		p := fldPath.Child("matchExpressions").Index(i)
		allErrs = append(allErrs, validateNodeSelectorOperator(r, p)...)
		allErrs = append(allErrs, metav1validation.ValidateLabelName(r.Key, p.Child("key"))...)
	}
	for i, r := range t.MatchFields {
		p := fldPath.Child("matchFields").Index(i)
		if r.Key != "metadata.name" {
			allErrs = append(allErrs, field.NotSupported(p.Child("key"), r.Key, []string{"metadata.name"}))
		}
		switch r.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(r.Values) != 1 {
				allErrs = append(allErrs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
			}
		default:
			allErrs = append(allErrs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
		}
	}
	return allErrs
}

func validateNodeSelectorOperator(r corev1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			return field.ErrorList{field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'")}
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			return field.ErrorList{field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")}
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(r.Values) != 1 {
			return field.ErrorList{field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")}
		}
		if _, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil {
			return field.ErrorList{field.Invalid(p.Child("values").Index(0), r.Values[0], "must be an integer")}
		}
	default:
		return field.ErrorList{field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator")}
	}
	return nil
}

func validatePodAffinityTerm(t corev1.PodAffinityTerm, fldPath *field.Path) field.ErrorList {
	allErrs := metav1validation.ValidateLabelSelector(t.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("labelSelector"))
	allErrs = append(allErrs, metav1validation.ValidateLabelSelector(t.NamespaceSelector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("namespaceSelector"))...)
	for _, ns := range t.Namespaces {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(ns, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), ns, msg))
		}
	}
	if t.TopologyKey == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("topologyKey"), "can not be empty"))
	} else {
		allErrs = append(allErrs, metav1validation.ValidateLabelName(t.TopologyKey, fldPath.Child("topologyKey"))...)
	}
	return allErrs
}
