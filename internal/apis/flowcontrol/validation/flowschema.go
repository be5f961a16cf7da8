// Package validation checks flowcontrol.apiserver.k8s.io/v1 objects the way
// kube-apiserver does, against the k8s.io/api types. The check that the
// mandatory objects (exempt, catch-all) keep their fixed spec is not made.
package validation

import (
	"fmt"
	"slices"
	"strings"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

var (
	supportedDistinguisherMethods = []string{string(flowcontrolv1.FlowDistinguisherMethodByNamespaceType), string(flowcontrolv1.FlowDistinguisherMethodByUserType)}
	supportedVerbs                = []string{"create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"}
	supportedSubjectKinds         = []string{string(flowcontrolv1.SubjectKindGroup), string(flowcontrolv1.SubjectKindServiceAccount), string(flowcontrolv1.SubjectKindUser)}
)

const nsErrIntro = "each member of this list must be '*' or a DNS-1123 label; "

// ValidateFlowSchema checks a flow schema, its spec and its status.
func ValidateFlowSchema(fs *flowcontrolv1.FlowSchema) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&fs.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	allErrs = append(allErrs, validateFlowSchemaSpec(fs.Name, &fs.Spec, field.NewPath("spec"))...)
	return append(allErrs, ValidateFlowSchemaStatus(&fs.Status, field.NewPath("status"))...)
}

// ValidateFlowSchemaUpdate checks the new flow schema as on create, and the
// metadata changes.
func ValidateFlowSchemaUpdate(fs, old *flowcontrolv1.FlowSchema) field.ErrorList {
	allErrs := ValidateFlowSchema(fs)
	return append(allErrs, corevalidation.ValidateObjectMetaUpdate(&fs.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// ValidateFlowSchemaStatus checks the conditions: each has a type, no type
// twice.
func ValidateFlowSchemaStatus(status *flowcontrolv1.FlowSchemaStatus, fldPath *field.Path) field.ErrorList {
	types := make([]string, 0, len(status.Conditions))
	for _, c := range status.Conditions {
		types = append(types, string(c.Type))
	}
	return validateConditionTypes(types, fldPath.Child("conditions"))
}

func validateConditionTypes(types []string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := map[string]bool{}
	for i, t := range types {
		if seen[t] {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i).Child("type"), t))
		}
		seen[t] = true
		if t == "" {
			allErrs = append(allErrs, field.Required(fldPath.Index(i).Child("type"), "must not be empty"))
		}
	}
	return allErrs
}

func validateFlowSchemaSpec(name string, spec *flowcontrolv1.FlowSchemaSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	mp := fldPath.Child("matchingPrecedence")
	if spec.MatchingPrecedence <= 0 {
		allErrs = append(allErrs, field.Invalid(mp, spec.MatchingPrecedence, "must be a positive value"))
	}
	if spec.MatchingPrecedence > flowcontrolv1.FlowSchemaMaxMatchingPrecedence {
		allErrs = append(allErrs, field.Invalid(mp, spec.MatchingPrecedence, fmt.Sprintf("must not be greater than %v", flowcontrolv1.FlowSchemaMaxMatchingPrecedence)))
	}
	if spec.MatchingPrecedence == 1 && name != flowcontrolv1.FlowSchemaNameExempt {
		allErrs = append(allErrs, field.Invalid(mp, spec.MatchingPrecedence, "only the schema named 'exempt' may have matchingPrecedence 1"))
	}
	if dm := spec.DistinguisherMethod; dm != nil && !slices.Contains(supportedDistinguisherMethods, string(dm.Type)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("distinguisherMethod", "type"), dm, supportedDistinguisherMethods))
	}
	plPath := fldPath.Child("priorityLevelConfiguration", "name")
	if pl := spec.PriorityLevelConfiguration.Name; pl != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(pl, false) {
			allErrs = append(allErrs, field.Invalid(plPath, pl, msg))
		}
	} else {
		allErrs = append(allErrs, field.Required(plPath, "must reference a priority level"))
	}
	for i := range spec.Rules {
		allErrs = append(allErrs, validatePolicyRulesWithSubjects(&spec.Rules[i], fldPath.Child("rules").Index(i))...)
	}
	return allErrs
}

func validatePolicyRulesWithSubjects(rule *flowcontrolv1.PolicyRulesWithSubjects, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(rule.Subjects) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("subjects"), "subjects must contain at least one value"))
	}
	for i := range rule.Subjects {
		allErrs = append(allErrs, validateSubject(&rule.Subjects[i], fldPath.Child("subjects").Index(i))...)
	}
	if len(rule.ResourceRules) == 0 && len(rule.NonResourceRules) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "at least one of resourceRules and nonResourceRules has to be non-empty"))
	}
	for i := range rule.ResourceRules {
		allErrs = append(allErrs, validateResourcePolicyRule(&rule.ResourceRules[i], fldPath.Child("resourceRules").Index(i))...)
	}
	for i := range rule.NonResourceRules {
		allErrs = append(allErrs, validateNonResourcePolicyRule(&rule.NonResourceRules[i], fldPath.Child("nonResourceRules").Index(i))...)
	}
	return allErrs
}

// validateSubject checks that the member named by kind is set and valid,
// and that the others are not set.
func validateSubject(s *flowcontrolv1.Subject, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	forbid := func(set bool, member, kind string) {
		if set {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(member), member+" is forbidden when subject kind is not '"+kind+"'"))
		}
	}
	switch s.Kind {
	case flowcontrolv1.SubjectKindServiceAccount:
		allErrs = append(allErrs, validateServiceAccountSubject(s.ServiceAccount, fldPath.Child("serviceAccount"))...)
		forbid(s.User != nil, "user", "User")
		forbid(s.Group != nil, "group", "Group")
	case flowcontrolv1.SubjectKindUser:
		if s.User == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("user"), "user is required when subject kind is 'User'"))
		} else if s.User.Name == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("user", "name"), ""))
		}
		forbid(s.ServiceAccount != nil, "serviceAccount", "ServiceAccount")
		forbid(s.Group != nil, "group", "Group")
	case flowcontrolv1.SubjectKindGroup:
		if s.Group == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("group"), "group is required when subject kind is 'Group'"))
		} else if s.Group.Name == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("group", "name"), ""))
		}
		forbid(s.ServiceAccount != nil, "serviceAccount", "ServiceAccount")
		forbid(s.User != nil, "user", "User")
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("kind"), s.Kind, supportedSubjectKinds))
	}
	return allErrs
}

func validateServiceAccountSubject(sa *flowcontrolv1.ServiceAccountSubject, fldPath *field.Path) field.ErrorList {
	if sa == nil {
		return field.ErrorList{field.Required(fldPath, "serviceAccount is required when subject kind is 'ServiceAccount'")}
	}
	var allErrs field.ErrorList
	if sa.Name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	} else if sa.Name != flowcontrolv1.NameAll {
		for _, msg := range apimachineryvalidation.ValidateServiceAccountName(sa.Name, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), sa.Name, msg))
		}
	}
	if sa.Namespace == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), "must specify namespace for service account"))
	} else {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(sa.Namespace, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), sa.Namespace, msg))
		}
	}
	return allErrs
}

// validateVerbs: at least one, '*' alone, otherwise only known verbs.
func validateVerbs(verbs []string, fldPath *field.Path) field.ErrorList {
	switch {
	case len(verbs) == 0:
		return field.ErrorList{field.Required(fldPath, "verbs must contain at least one value")}
	case slices.Contains(verbs, "*"):
		if len(verbs) > 1 {
			return field.ErrorList{field.Invalid(fldPath, verbs, "if '*' is present, must not specify other verbs")}
		}
	default:
		for _, v := range verbs {
			if !slices.Contains(supportedVerbs, v) {
				return field.ErrorList{field.NotSupported(fldPath, verbs, supportedVerbs)}
			}
		}
	}
	return nil
}

func validateResourcePolicyRule(rule *flowcontrolv1.ResourcePolicyRule, fldPath *field.Path) field.ErrorList {
	allErrs := validateVerbs(rule.Verbs, fldPath.Child("verbs"))
	if len(rule.APIGroups) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("apiGroups"), "resource rules must supply at least one api group"))
	} else if len(rule.APIGroups) > 1 && slices.Contains(rule.APIGroups, "*") {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("apiGroups"), rule.APIGroups, "if '*' is present, must not specify other api groups"))
	}
	if len(rule.Resources) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("resources"), "resource rules must supply at least one resource"))
	} else if len(rule.Resources) > 1 && slices.Contains(rule.Resources, "*") {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("resources"), rule.Resources, "if '*' is present, must not specify other resources"))
	}
	nsPath := fldPath.Child("namespaces")
	switch {
	case len(rule.Namespaces) == 0 && !rule.ClusterScope:
		allErrs = append(allErrs, field.Required(nsPath, "resource rules that are not cluster scoped must supply at least one namespace"))
	case slices.Contains(rule.Namespaces, "*"):
		if len(rule.Namespaces) > 1 {
			allErrs = append(allErrs, field.Invalid(nsPath, rule.Namespaces, "if '*' is present, must not specify other namespaces"))
		}
	default:
		for i, ns := range rule.Namespaces {
			for _, msg := range apimachineryvalidation.ValidateNamespaceName(ns, false) {
				allErrs = append(allErrs, field.Invalid(nsPath.Index(i), ns, nsErrIntro+msg))
			}
		}
	}
	return allErrs
}

func validateNonResourcePolicyRule(rule *flowcontrolv1.NonResourcePolicyRule, fldPath *field.Path) field.ErrorList {
	allErrs := validateVerbs(rule.Verbs, fldPath.Child("verbs"))
	urlsPath := fldPath.Child("nonResourceURLs")
	switch {
	case len(rule.NonResourceURLs) == 0:
		allErrs = append(allErrs, field.Required(urlsPath, "nonResourceURLs must contain at least one value"))
	case slices.Contains(rule.NonResourceURLs, "*"):
		if len(rule.NonResourceURLs) > 1 {
			allErrs = append(allErrs, field.Invalid(urlsPath, rule.NonResourceURLs, "if '*' is present, must not specify other non-resource URLs"))
		}
	default:
		for i, u := range rule.NonResourceURLs {
			if err := validateNonResourceURLPath(u, urlsPath.Index(i)); err != nil {
				allErrs = append(allErrs, err)
			}
		}
	}
	return allErrs
}

// validateNonResourceURLPath: "/" or a path starting with a slash, without
// spaces or double slashes, whose only wildcard is a trailing "/*".
func validateNonResourceURLPath(p string, fldPath *field.Path) *field.Error {
	switch {
	case p == "":
		return field.Invalid(fldPath, p, "must not be empty")
	case p == "/":
		return nil
	case !strings.HasPrefix(p, "/"):
		return field.Invalid(fldPath, p, "must start with slash")
	case strings.Contains(p, " "):
		return field.Invalid(fldPath, p, "must not contain white-space")
	case strings.Contains(p, "//"):
		return field.Invalid(fldPath, p, "must not contain double slash")
	}
	if n := strings.Count(p, "*"); n > 1 || (n == 1 && !strings.HasSuffix(p, "/*")) {
		return field.Invalid(fldPath, p, "wildcard can only do suffix matching")
	}
	return nil
}
