package validation

import (
	"encoding/json"
	"net"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// taintsAnnotationKey is the legacy annotation holding node taints as
// JSON, still validated upstream.
const taintsAnnotationKey = "scheduler.alpha.kubernetes.io/taints"

const podCIDRChangeMsg = `node updates may not change podCIDR except from "" to valid`

// ValidateNode checks a node on create (and, with ValidateNodeUpdate, on
// update). Status is optional but its quantities must be valid.
func ValidateNode(node *corev1.Node) field.ErrorList {
	metaPath := field.NewPath("metadata")
	allErrs := ValidateObjectMeta(&node.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, metaPath)
	allErrs = append(allErrs, validateNodeAnnotations(node.Annotations, metaPath.Child("annotations"))...)
	// Upstream reports spec.taints under metadata.taints; kept for
	// identical error messages.
	allErrs = append(allErrs, validateNodeTaints(node.Spec.Taints, metaPath.Child("taints"))...)
	allErrs = append(allErrs, validateNodeResources(node)...)
	return append(allErrs, validatePodCIDRs(node.Spec.PodCIDRs)...)
}

// ValidateNodeUpdate checks what may change in an update of a node or of
// its status: podCIDRs and providerID only from empty, externalID never,
// addresses unique.
func ValidateNodeUpdate(node, old *corev1.Node) field.ErrorList {
	metaPath := field.NewPath("metadata")
	allErrs := ValidateObjectMetaUpdate(&node.ObjectMeta, &old.ObjectMeta, metaPath)
	allErrs = append(allErrs, validateNodeAnnotations(node.Annotations, metaPath.Child("annotations"))...)
	allErrs = append(allErrs, validateNodeResources(node)...)
	seen := map[corev1.NodeAddress]bool{}
	for i, a := range node.Status.Addresses {
		if seen[a] {
			allErrs = append(allErrs, field.Duplicate(field.NewPath("status", "addresses").Index(i), a))
		}
		seen[a] = true
	}
	if len(old.Spec.PodCIDRs) > 0 {
		cidrsPath := field.NewPath("spec", "podCIDRs")
		if len(old.Spec.PodCIDRs) != len(node.Spec.PodCIDRs) {
			allErrs = append(allErrs, field.Forbidden(cidrsPath, podCIDRChangeMsg))
		} else {
			for i, v := range old.Spec.PodCIDRs {
				if v != node.Spec.PodCIDRs[i] {
					allErrs = append(allErrs, field.Forbidden(cidrsPath, podCIDRChangeMsg))
				}
			}
		}
	}
	if old.Spec.ProviderID != "" && old.Spec.ProviderID != node.Spec.ProviderID {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "providerID"), `node updates may not change providerID except from "" to valid`))
	}
	allErrs = append(allErrs, validateNodeTaints(node.Spec.Taints, metaPath.Child("taints"))...)
	if node.Spec.DoNotUseExternalID != old.Spec.DoNotUseExternalID {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("spec", "externalID"), "may not be updated"))
	}
	return allErrs
}

// validateNodeTaints: a label key, a label value, a known effect, and
// each key/effect pair once.
func validateNodeTaints(taints []corev1.Taint, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	unique := map[corev1.TaintEffect]sets.Set[string]{}
	for i, taint := range taints {
		idxPath := fldPath.Index(i)
		allErrs = append(allErrs, metav1validation.ValidateLabelName(taint.Key, idxPath.Child("key"))...)
		if errs := validation.IsValidLabelValue(taint.Value); len(errs) != 0 {
			allErrs = append(allErrs, field.Invalid(idxPath.Child("value"), taint.Value, strings.Join(errs, ";")))
		}
		allErrs = append(allErrs, validateNodeTaintEffect(taint.Effect, idxPath.Child("effect"))...)
		if unique[taint.Effect].Has(taint.Key) {
			dup := field.Duplicate(idxPath, taint)
			dup.Detail = "taints must be unique by key and effect pair"
			allErrs = append(allErrs, dup)
			continue
		}
		if unique[taint.Effect] == nil {
			unique[taint.Effect] = sets.New[string]()
		}
		unique[taint.Effect].Insert(taint.Key)
	}
	return allErrs
}

func validateNodeTaintEffect(effect corev1.TaintEffect, fldPath *field.Path) field.ErrorList {
	if effect == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	switch effect {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath, effect, []corev1.TaintEffect{
		corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute,
	})}
}

// validateNodeAnnotations checks the legacy taints annotation when set.
func validateNodeAnnotations(annotations map[string]string, fldPath *field.Path) field.ErrorList {
	value := annotations[taintsAnnotationKey]
	if value == "" {
		return nil
	}
	var taints []corev1.Taint
	if err := json.Unmarshal([]byte(value), &taints); err != nil {
		return field.ErrorList{field.Invalid(fldPath, taintsAnnotationKey, err.Error())}
	}
	return validateNodeTaints(taints, fldPath.Child(taintsAnnotationKey))
}

// validateNodeResources checks the quantities of capacity and allocatable.
func validateNodeResources(node *corev1.Node) field.ErrorList {
	var allErrs field.ErrorList
	for k, v := range node.Status.Capacity {
		allErrs = append(allErrs, checkResourceQuantity(k, v, field.NewPath("status", "capacity", string(k)))...)
	}
	for k, v := range node.Status.Allocatable {
		allErrs = append(allErrs, checkResourceQuantity(k, v, field.NewPath("status", "allocatable", string(k)))...)
	}
	return allErrs
}

// validatePodCIDRs: valid CIDRs, at most one per IP family, no repeats.
func validatePodCIDRs(cidrs []string) field.ErrorList {
	if len(cidrs) == 0 {
		return nil
	}
	var allErrs field.ErrorList
	fldPath := field.NewPath("spec", "podCIDRs")
	for i, v := range cidrs {
		allErrs = append(allErrs, validation.IsValidCIDR(fldPath.Index(i), v)...)
	}
	if len(cidrs) < 2 {
		return allErrs
	}
	if len(cidrs) > 2 || !dualStackCIDRs(cidrs[0], cidrs[1]) {
		allErrs = append(allErrs, field.Invalid(fldPath, cidrs, "may specify no more than one CIDR for each IP family"))
	}
	seen := sets.New[string]()
	for i, v := range cidrs {
		if seen.Has(v) {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), v))
		}
		seen.Insert(v)
	}
	return allErrs
}

// dualStackCIDRs says whether a and b are one IPv4 and one IPv6 CIDR.
func dualStackCIDRs(a, b string) bool {
	_, na, errA := net.ParseCIDR(a)
	_, nb, errB := net.ParseCIDR(b)
	if errA != nil || errB != nil {
		return false
	}
	return (na.IP.To4() == nil) != (nb.IP.To4() == nil)
}
