// Package validation checks admissionregistration.k8s.io/v1 objects the
// way kube-apiserver does, against the k8s.io/api types. CEL expressions
// (match conditions, validations, mutations, variables) are checked for
// presence only; they are not compiled.
package validation

import (
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	supportedFailurePolicies      = []string{string(admissionregistrationv1.Fail), string(admissionregistrationv1.Ignore)}
	supportedMatchPolicies        = []string{string(admissionregistrationv1.Equivalent), string(admissionregistrationv1.Exact)}
	supportedOperations           = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}
	supportedScopes               = []string{"*", "Cluster", "Namespaced"}
	supportedReinvocationPolicies = []string{string(admissionregistrationv1.IfNeededReinvocationPolicy), string(admissionregistrationv1.NeverReinvocationPolicy)}
)

func hasWildcard(s []string) bool { return slices.Contains(s, "*") }

// validateRuleWithOperations checks operations, then the rule.
func validateRuleWithOperations(r *admissionregistrationv1.RuleWithOperations, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	opsPath := fldPath.Child("operations")
	if len(r.Operations) == 0 {
		allErrs = append(allErrs, field.Required(opsPath, ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, admissionregistrationv1.OperationAll) {
		allErrs = append(allErrs, field.Invalid(opsPath, r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !slices.Contains(supportedOperations, string(op)) {
			allErrs = append(allErrs, field.NotSupported(opsPath.Index(i), op, supportedOperations))
		}
	}
	return append(allErrs, validateRule(&r.Rule, fldPath)...)
}

func validateRule(r *admissionregistrationv1.Rule, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(r.APIGroups) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && hasWildcard(r.APIGroups) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	versionsPath := fldPath.Child("apiVersions")
	if len(r.APIVersions) == 0 {
		allErrs = append(allErrs, field.Required(versionsPath, ""))
	}
	if len(r.APIVersions) > 1 && hasWildcard(r.APIVersions) {
		allErrs = append(allErrs, field.Invalid(versionsPath, r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			allErrs = append(allErrs, field.Required(versionsPath.Index(i), ""))
		}
	}
	allErrs = append(allErrs, validateResources(r.Resources, fldPath.Child("resources"))...)
	if r.Scope != nil && !slices.Contains(supportedScopes, string(*r.Scope)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("scope"), *r.Scope, supportedScopes))
	}
	return allErrs
}

// validateResources checks "resource/subresource" patterns: "*/*" alone,
// "*" not beside plain resources, and no pattern shadowed by a wildcard
// listed before it.
func validateResources(resources []string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(resources) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, ""))
	}
	wildSub := map[string]bool{} // x/*
	wildRes := map[string]bool{} // */x
	hasDoubleWildcard, hasSingleWildcard, hasPlain := false, false, false
	for i, rs := range resources {
		if rs == "" {
			allErrs = append(allErrs, field.Required(fldPath.Index(i), ""))
			continue
		}
		hasDoubleWildcard = hasDoubleWildcard || rs == "*/*"
		hasSingleWildcard = hasSingleWildcard || rs == "*"
		res, sub, found := strings.Cut(rs, "/")
		if !found {
			// Upstream remembers only the last plain entry.
			hasPlain = rs != "*"
			continue
		}
		if wildSub[res] {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildRes[sub] {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildSub[res] = true
		}
		if res == "*" {
			wildRes[sub] = true
		}
	}
	if len(resources) > 1 && hasDoubleWildcard {
		allErrs = append(allErrs, field.Invalid(fldPath, resources, "if '*/*' is present, must not specify other resources"))
	}
	if hasSingleWildcard && hasPlain {
		allErrs = append(allErrs, field.Invalid(fldPath, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return allErrs
}

// validateMatchConditions checks up to 64 named conditions with an
// expression each. The expressions are not compiled.
func validateMatchConditions(conditions []admissionregistrationv1.MatchCondition, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(conditions) > 64 {
		allErrs = append(allErrs, field.TooMany(fldPath, len(conditions), 64))
	}
	names := map[string]bool{}
	for i, c := range conditions {
		idxPath := fldPath.Index(i)
		if strings.TrimSpace(c.Expression) == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("expression"), ""))
		}
		if c.Name == "" {
			allErrs = append(allErrs, field.Required(idxPath.Child("name"), ""))
		} else {
			for _, msg := range content.IsLabelKey(c.Name) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("name"), c.Name, msg))
			}
			if names[c.Name] {
				allErrs = append(allErrs, field.Duplicate(idxPath.Child("name"), c.Name))
			}
			names[c.Name] = true
		}
	}
	return allErrs
}

// validateMatchResources checks a policy's or binding's match resources,
// strictly: these types came after lenient label selectors were fixed.
func validateMatchResources(m *admissionregistrationv1.MatchResources, fldPath *field.Path) field.ErrorList {
	if m == nil {
		return nil
	}
	var allErrs field.ErrorList
	if m.MatchPolicy == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("matchPolicy"), ""))
	} else if !slices.Contains(supportedMatchPolicies, string(*m.MatchPolicy)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("matchPolicy"), *m.MatchPolicy, supportedMatchPolicies))
	}
	if m.NamespaceSelector == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("namespaceSelector"), ""))
	} else {
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(m.NamespaceSelector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("namespaceSelector"))...)
	}
	if m.ObjectSelector == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("objectSelector"), ""))
	} else {
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(m.ObjectSelector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("objectSelector"))...)
	}
	for i := range m.ResourceRules {
		allErrs = append(allErrs, validateNamedRuleWithOperations(&m.ResourceRules[i], fldPath.Child("resourceRules").Index(i))...)
	}
	for i := range m.ExcludeResourceRules {
		allErrs = append(allErrs, validateNamedRuleWithOperations(&m.ExcludeResourceRules[i], fldPath.Child("excludeResourceRules").Index(i))...)
	}
	return allErrs
}

func validateNamedRuleWithOperations(r *admissionregistrationv1.NamedRuleWithOperations, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := map[string]bool{}
	for i, name := range r.ResourceNames {
		for _, msg := range path.ValidatePathSegmentName(name, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("resourceNames").Index(i), name, msg))
		}
		if seen[name] {
			allErrs = append(allErrs, field.Duplicate(fldPath.Child("resourceNames").Index(i), name))
		}
		seen[name] = true
	}
	return append(allErrs, validateRuleWithOperations(&r.RuleWithOperations, fldPath)...)
}
