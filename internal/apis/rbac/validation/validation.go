// Package validation checks rbac.authorization.k8s.io/v1 objects the way
// kube-apiserver does: the same rules, field paths and messages, written
// against the k8s.io/api types. Privilege escalation checks are not
// validation and live elsewhere.
package validation

import (
	rbacv1 "k8s.io/api/rbac/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateRBACName is the name rule of roles, bindings and role
// references: upstream asks only that the name be one URL path segment.
func ValidateRBACName(name string, prefix bool) []string {
	return path.ValidatePathSegmentName(name, prefix)
}

// ValidateRole checks a new role; its rules may not name non-resource URLs.
func ValidateRole(role *rbacv1.Role) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&role.ObjectMeta, true, ValidateRBACName, field.NewPath("metadata"))
	for i, rule := range role.Rules {
		allErrs = append(allErrs, validatePolicyRule(rule, true, field.NewPath("rules").Index(i))...)
	}
	return allErrs
}

// ValidateRoleUpdate checks the new role and the metadata changes.
func ValidateRoleUpdate(role, old *rbacv1.Role) field.ErrorList {
	allErrs := ValidateRole(role)
	return append(allErrs, corevalidation.ValidateObjectMetaUpdate(&role.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// ValidateClusterRole checks a new cluster role, its rules and its
// aggregation rule.
func ValidateClusterRole(role *rbacv1.ClusterRole) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&role.ObjectMeta, false, ValidateRBACName, field.NewPath("metadata"))
	for i, rule := range role.Rules {
		allErrs = append(allErrs, validatePolicyRule(rule, false, field.NewPath("rules").Index(i))...)
	}
	if role.AggregationRule != nil {
		allErrs = append(allErrs, validateAggregationRule(role.AggregationRule, field.NewPath("aggregationRule"))...)
	}
	return allErrs
}

// ValidateClusterRoleUpdate checks the new cluster role and the metadata
// changes.
func ValidateClusterRoleUpdate(role, old *rbacv1.ClusterRole) field.ErrorList {
	allErrs := ValidateClusterRole(role)
	return append(allErrs, corevalidation.ValidateObjectMetaUpdate(&role.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

func validateAggregationRule(rule *rbacv1.AggregationRule, fldPath *field.Path) field.ErrorList {
	selectorsPath := fldPath.Child("clusterRoleSelectors")
	if len(rule.ClusterRoleSelectors) == 0 {
		return field.ErrorList{field.Required(selectorsPath, "at least one clusterRoleSelector required if aggregationRule is non-nil")}
	}
	var allErrs field.ErrorList
	for i := range rule.ClusterRoleSelectors {
		selector := &rule.ClusterRoleSelectors[i]
		idxPath := selectorsPath.Index(i)
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(selector, metav1validation.LabelSelectorValidationOptions{}, idxPath)...)
		if _, err := metav1.LabelSelectorAsSelector(selector); err != nil {
			allErrs = append(allErrs, field.Invalid(idxPath, selector, "invalid label selector."))
		}
	}
	return allErrs
}

// validatePolicyRule checks one rule: verbs always, then either
// non-resource URLs (cluster roles only, alone) or API groups and
// resources.
func validatePolicyRule(rule rbacv1.PolicyRule, isNamespaced bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(rule.Verbs) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("verbs"), "verbs must contain at least one value"))
	}
	if len(rule.NonResourceURLs) > 0 {
		if isNamespaced {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nonResourceURLs"), rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 || len(rule.ResourceNames) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("nonResourceURLs"), rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return allErrs
	}
	if len(rule.APIGroups) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(rule.Resources) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("resources"), "resource rules must supply at least one resource"))
	}
	// Upstream reports this as Required, though nothing is missing.
	if len(rule.ResourceNames) > 0 && len(rule.Resources) > 1 {
		allErrs = append(allErrs, field.Required(fldPath.Child("resourceNames"), "resource names cannot apply to multiple resources"))
	}
	return allErrs
}

// ValidateRoleBinding checks a new role binding, which may refer to a Role
// or a ClusterRole.
func ValidateRoleBinding(rb *rbacv1.RoleBinding) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&rb.ObjectMeta, true, ValidateRBACName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateRoleRef(rb.RoleRef, []string{"Role", "ClusterRole"})...)
	for i, s := range rb.Subjects {
		allErrs = append(allErrs, validateSubject(s, true, field.NewPath("subjects").Index(i))...)
	}
	return allErrs
}

// ValidateRoleBindingUpdate checks the new binding, the metadata changes
// and that roleRef did not change.
func ValidateRoleBindingUpdate(rb, old *rbacv1.RoleBinding) field.ErrorList {
	allErrs := ValidateRoleBinding(rb)
	allErrs = append(allErrs, corevalidation.ValidateObjectMetaUpdate(&rb.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	if rb.RoleRef != old.RoleRef {
		allErrs = append(allErrs, field.Invalid(field.NewPath("roleRef"), rb.RoleRef, "cannot change roleRef"))
	}
	return allErrs
}

// ValidateClusterRoleBinding checks a new cluster role binding, which may
// refer only to a ClusterRole; service account subjects need a namespace.
func ValidateClusterRoleBinding(crb *rbacv1.ClusterRoleBinding) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&crb.ObjectMeta, false, ValidateRBACName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateRoleRef(crb.RoleRef, []string{"ClusterRole"})...)
	for i, s := range crb.Subjects {
		allErrs = append(allErrs, validateSubject(s, false, field.NewPath("subjects").Index(i))...)
	}
	return allErrs
}

// ValidateClusterRoleBindingUpdate checks the new binding, the metadata
// changes and that roleRef did not change.
func ValidateClusterRoleBindingUpdate(crb, old *rbacv1.ClusterRoleBinding) field.ErrorList {
	allErrs := ValidateClusterRoleBinding(crb)
	allErrs = append(allErrs, corevalidation.ValidateObjectMetaUpdate(&crb.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	if crb.RoleRef != old.RoleRef {
		allErrs = append(allErrs, field.Invalid(field.NewPath("roleRef"), crb.RoleRef, "cannot change roleRef"))
	}
	return allErrs
}

func validateRoleRef(ref rbacv1.RoleRef, kinds []string) field.ErrorList {
	var allErrs field.ErrorList
	refPath := field.NewPath("roleRef")
	if ref.APIGroup != rbacv1.GroupName {
		allErrs = append(allErrs, field.NotSupported(refPath.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	known := false
	for _, k := range kinds {
		known = known || ref.Kind == k
	}
	if !known {
		allErrs = append(allErrs, field.NotSupported(refPath.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		allErrs = append(allErrs, field.Required(refPath.Child("name"), ""))
	} else {
		for _, msg := range ValidateRBACName(ref.Name, false) {
			allErrs = append(allErrs, field.Invalid(refPath.Child("name"), ref.Name, msg))
		}
	}
	return allErrs
}

// validateSubject checks one subject by kind. Subjects of a cluster role
// binding that are service accounts must say their namespace.
func validateSubject(s rbacv1.Subject, isNamespaced bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if s.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range apimachineryvalidation.ValidateServiceAccountName(s.Name, false) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !isNamespaced && s.Namespace == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), ""))
		}
	case rbacv1.UserKind, rbacv1.GroupKind:
		if s.Name == "" {
			what := "user"
			if s.Kind == rbacv1.GroupKind {
				what = "group"
			}
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), s.Name, what+" name cannot be empty"))
		}
		if s.APIGroup != rbacv1.GroupName {
			allErrs = append(allErrs, field.NotSupported(fldPath.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return allErrs
}
