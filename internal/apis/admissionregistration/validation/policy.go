package validation

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

const maxAuditAnnotations = 20

var (
	supportedValidationReasons = []string{string(metav1.StatusReasonForbidden), string(metav1.StatusReasonInvalid), string(metav1.StatusReasonRequestEntityTooLarge)}
	supportedValidationActions = []string{string(admissionregistrationv1.Audit), string(admissionregistrationv1.Deny), string(admissionregistrationv1.Warn)}
	supportedPatchTypes        = []string{string(admissionregistrationv1.PatchTypeApplyConfiguration), string(admissionregistrationv1.PatchTypeJSONPatch)}
	celIdentifier              = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)
	celReserved                = []string{"as", "break", "const", "continue", "else", "false", "for", "function", "if", "import",
		"in", "let", "loop", "namespace", "null", "package", "return", "true", "var", "void", "while"}
)

// ValidateValidatingAdmissionPolicy checks a validating admission policy.
func ValidateValidatingAdmissionPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&p.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	spec := &p.Spec
	allErrs = append(allErrs, validatePolicyCommon(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints, spec.MatchConditions, spec.Variables, specPath)...)
	if len(spec.Validations) == 0 && len(spec.AuditAnnotations) == 0 {
		msg := "validations or auditAnnotations must contain at least one item"
		return append(allErrs, field.Required(specPath.Child("validations"), msg), field.Required(specPath.Child("auditAnnotations"), msg))
	}
	for i := range spec.Validations {
		allErrs = append(allErrs, validateValidation(&spec.Validations[i], specPath.Child("validations").Index(i))...)
	}
	if len(spec.AuditAnnotations) > maxAuditAnnotations {
		allErrs = append(allErrs, field.Invalid(specPath.Child("auditAnnotations"), spec.AuditAnnotations, fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
	}
	keys := map[string]bool{}
	for i, a := range spec.AuditAnnotations {
		aPath := specPath.Child("auditAnnotations").Index(i)
		allErrs = append(allErrs, validateAuditAnnotation(p.Name, &a, aPath)...)
		if keys[a.Key] {
			allErrs = append(allErrs, field.Duplicate(aPath.Child("key"), a.Key))
		}
		keys[a.Key] = true
	}
	return append(allErrs, validatingPolicyCompileErrors(spec, specPath)...)
}

// ValidateValidatingAdmissionPolicyUpdate checks an update.
func ValidateValidatingAdmissionPolicyUpdate(p, old *admissionregistrationv1.ValidatingAdmissionPolicy) field.ErrorList {
	allErrs := ValidateValidatingAdmissionPolicy(p)
	return append(allErrs, corevalidation.ValidateObjectMetaUpdate(&p.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// ValidateValidatingAdmissionPolicyStatus checks the status a controller
// writes: its conditions and type-checking warnings.
func ValidateValidatingAdmissionPolicyStatus(status *admissionregistrationv1.ValidatingAdmissionPolicyStatus, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if tc := status.TypeChecking; tc != nil {
		for i, w := range tc.ExpressionWarnings {
			wPath := fldPath.Child("typeChecking", "expressionWarnings").Index(i)
			if w.Warning == "" {
				allErrs = append(allErrs, field.Required(wPath.Child("warning"), ""))
			}
			if strings.TrimSpace(w.FieldRef) == "" {
				allErrs = append(allErrs, field.Required(wPath.Child("fieldRef"), ""))
			}
		}
	}
	return append(allErrs, metav1validation.ValidateConditions(status.Conditions, fldPath.Child("conditions"))...)
}

// ValidateMutatingAdmissionPolicy checks a mutating admission policy.
func ValidateMutatingAdmissionPolicy(p *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&p.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	spec := &p.Spec
	allErrs = append(allErrs, validatePolicyCommon(spec.FailurePolicy, spec.ParamKind, spec.MatchConstraints, spec.MatchConditions, spec.Variables, specPath)...)
	if len(spec.Mutations) == 0 {
		allErrs = append(allErrs, field.Required(specPath.Child("mutations"), "mutations must contain at least one item"))
	}
	for i := range spec.Mutations {
		allErrs = append(allErrs, validateMutation(&spec.Mutations[i], specPath.Child("mutations").Index(i))...)
	}
	rp := specPath.Child("reinvocationPolicy")
	if spec.ReinvocationPolicy == "" {
		allErrs = append(allErrs, field.Required(rp, ""))
	} else if !slices.Contains(supportedReinvocationPolicies, string(spec.ReinvocationPolicy)) {
		allErrs = append(allErrs, field.NotSupported(rp, spec.ReinvocationPolicy, supportedReinvocationPolicies))
	}
	return append(allErrs, mutatingPolicyCompileErrors(spec, specPath)...)
}

// ValidateMutatingAdmissionPolicyUpdate checks an update.
func ValidateMutatingAdmissionPolicyUpdate(p, old *admissionregistrationv1.MutatingAdmissionPolicy) field.ErrorList {
	allErrs := ValidateMutatingAdmissionPolicy(p)
	return append(allErrs, corevalidation.ValidateObjectMetaUpdate(&p.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// validatePolicyCommon checks what both kinds of policy share.
func validatePolicyCommon(failurePolicy *admissionregistrationv1.FailurePolicyType, paramKind *admissionregistrationv1.ParamKind,
	match *admissionregistrationv1.MatchResources, conditions []admissionregistrationv1.MatchCondition,
	variables []admissionregistrationv1.Variable, specPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if failurePolicy == nil {
		allErrs = append(allErrs, field.Required(specPath.Child("failurePolicy"), ""))
	} else if !slices.Contains(supportedFailurePolicies, string(*failurePolicy)) {
		allErrs = append(allErrs, field.NotSupported(specPath.Child("failurePolicy"), *failurePolicy, supportedFailurePolicies))
	}
	if paramKind != nil {
		allErrs = append(allErrs, validateParamKind(paramKind, specPath.Child("paramKind"))...)
	}
	if match == nil {
		allErrs = append(allErrs, field.Required(specPath.Child("matchConstraints"), ""))
	} else {
		allErrs = append(allErrs, validateMatchResources(match, specPath.Child("matchConstraints"))...)
		// A resource rule gives the expressions their type information.
		if len(match.ResourceRules) == 0 {
			allErrs = append(allErrs, field.Required(specPath.Child("matchConstraints", "resourceRules"), ""))
		}
	}
	allErrs = append(allErrs, validateMatchConditions(conditions, specPath.Child("matchConditions"))...)
	for i, v := range variables {
		vPath := specPath.Child("variables").Index(i)
		if strings.TrimSpace(v.Name) == "" {
			allErrs = append(allErrs, field.Required(vPath.Child("name"), "name is not specified"))
		} else if !celIdentifier.MatchString(v.Name) || slices.Contains(celReserved, v.Name) {
			allErrs = append(allErrs, field.Invalid(vPath.Child("name"), v.Name, "name is not a valid CEL identifier"))
		}
		if strings.TrimSpace(v.Expression) == "" {
			allErrs = append(allErrs, field.Required(vPath.Child("expression"), "expression is not specified"))
		}
	}
	return allErrs
}

func validateParamKind(pk *admissionregistrationv1.ParamKind, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	avPath := fldPath.Child("apiVersion")
	if pk.APIVersion == "" {
		allErrs = append(allErrs, field.Required(avPath, ""))
	} else if strings.Count(pk.APIVersion, "/") > 1 {
		allErrs = append(allErrs, field.Invalid(avPath, pk.APIVersion, fmt.Sprintf("unexpected GroupVersion string: %v", pk.APIVersion)))
	} else {
		group, version, found := strings.Cut(pk.APIVersion, "/")
		if !found {
			group, version = "", pk.APIVersion
		}
		if group != "" {
			if errs := validation.IsDNS1123Subdomain(group); len(errs) > 0 {
				allErrs = append(allErrs, field.Invalid(avPath, group, strings.Join(errs, ",")))
			}
		}
		if version == "" {
			allErrs = append(allErrs, field.Invalid(avPath, pk.APIVersion, "version must be specified"))
		} else if errs := validation.IsDNS1035Label(version); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(avPath, version, strings.Join(errs, ",")))
		}
	}
	if pk.Kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
	} else if errs := validation.IsDNS1035Label(strings.ToLower(pk.Kind)); len(errs) > 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("kind"), pk.Kind, "may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
	}
	return allErrs
}

func validateValidation(v *admissionregistrationv1.Validation, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if strings.TrimSpace(v.Expression) == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("expression"), "expression is not specified"))
	}
	if v.MessageExpression != "" && strings.TrimSpace(v.MessageExpression) == "" {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	}
	msg := strings.TrimSpace(v.Message)
	if v.Message != "" && msg == "" {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("message"), v.Message, "message must be non-empty if specified"))
	} else if strings.ContainsAny(msg, "\r\n") {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("message"), v.Message, "message must not contain line breaks"))
	}
	if v.Reason != nil && !slices.Contains(supportedValidationReasons, string(*v.Reason)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("reason"), *v.Reason, supportedValidationReasons))
	}
	return allErrs
}

func validateAuditAnnotation(policyName string, a *admissionregistrationv1.AuditAnnotation, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	keyPath := fldPath.Child("key")
	if policyName != "" {
		// The key becomes "<policy name>/<key>", which must be a qualified
		// name.
		for _, msg := range content.IsLabelKey(policyName + "/" + a.Key) {
			allErrs = append(allErrs, field.Invalid(keyPath, policyName+"/"+a.Key, msg))
		}
	} else {
		allErrs = append(allErrs, field.Invalid(keyPath, a.Key, "requires metadata.name be non-empty"))
	}
	expr := strings.TrimSpace(a.ValueExpression)
	switch {
	case expr == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("valueExpression"), "valueExpression is not specified"))
	case len(expr) > 5*1024:
		allErrs = append(allErrs, field.Required(fldPath.Child("valueExpression"), fmt.Sprintf("must not exceed %d bytes in length", 5*1024)))
	}
	return allErrs
}

func validateMutation(m *admissionregistrationv1.Mutation, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch m.PatchType {
	case "":
		allErrs = append(allErrs, field.Required(fldPath.Child("patchType"), "patchType is not specified"))
	case admissionregistrationv1.PatchTypeApplyConfiguration:
		if m.ApplyConfiguration == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("applyConfiguration"), fmt.Sprintf("must be specified when patchType is %s", m.PatchType)))
		} else if strings.TrimSpace(m.ApplyConfiguration.Expression) == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("applyConfiguration", "expression"), "expression is not specified"))
		}
		if m.JSONPatch != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("jsonPatch"), "{...}", fmt.Sprintf("must not be specified when patchType is %s", m.PatchType)))
		}
	case admissionregistrationv1.PatchTypeJSONPatch:
		if m.JSONPatch == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("jsonPatch"), fmt.Sprintf("must be specified when patchType is %s", m.PatchType)))
		} else if strings.TrimSpace(m.JSONPatch.Expression) == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("jsonPatch", "expression"), "expression is not specified"))
		}
		if m.ApplyConfiguration != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("applyConfiguration"), "{...}", fmt.Sprintf("must not be specified when patchType is %s", m.PatchType)))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("patchType"), m.PatchType, supportedPatchTypes))
	}
	return allErrs
}

// ValidateValidatingAdmissionPolicyBinding checks a binding: the policy
// it binds, its param reference, match resources and actions.
func ValidateValidatingAdmissionPolicyBinding(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&b.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	allErrs = append(allErrs, validateBindingCommon(b.Spec.PolicyName, b.Spec.ParamRef, specPath)...)
	// Upstream misspells this path; clients see "matchResouces".
	allErrs = append(allErrs, validateMatchResources(b.Spec.MatchResources, specPath.Child("matchResouces"))...)
	return append(allErrs, validateValidationActions(b.Spec.ValidationActions, specPath.Child("validationActions"))...)
}

// ValidateValidatingAdmissionPolicyBindingUpdate checks an update.
func ValidateValidatingAdmissionPolicyBindingUpdate(b, old *admissionregistrationv1.ValidatingAdmissionPolicyBinding) field.ErrorList {
	allErrs := ValidateValidatingAdmissionPolicyBinding(b)
	return append(allErrs, corevalidation.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// ValidateMutatingAdmissionPolicyBinding checks a binding: the policy it
// binds, its param reference and match resources.
func ValidateMutatingAdmissionPolicyBinding(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&b.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	allErrs = append(allErrs, validateBindingCommon(b.Spec.PolicyName, b.Spec.ParamRef, specPath)...)
	return append(allErrs, validateMatchResources(b.Spec.MatchResources, specPath.Child("matchResources"))...)
}

// ValidateMutatingAdmissionPolicyBindingUpdate checks an update.
func ValidateMutatingAdmissionPolicyBindingUpdate(b, old *admissionregistrationv1.MutatingAdmissionPolicyBinding) field.ErrorList {
	allErrs := ValidateMutatingAdmissionPolicyBinding(b)
	return append(allErrs, corevalidation.ValidateObjectMetaUpdate(&b.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

func validateBindingCommon(policyName string, ref *admissionregistrationv1.ParamRef, specPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if policyName == "" {
		allErrs = append(allErrs, field.Required(specPath.Child("policyName"), ""))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(policyName, false) {
			allErrs = append(allErrs, field.Invalid(specPath.Child("policyName"), policyName, msg))
		}
	}
	return append(allErrs, validateParamRef(ref, specPath.Child("paramRef"))...)
}

// validateParamRef: exactly one of name or selector, and an action for a
// missing parameter.
func validateParamRef(ref *admissionregistrationv1.ParamRef, fldPath *field.Path) field.ErrorList {
	if ref == nil {
		return nil
	}
	var allErrs field.ErrorList
	if ref.Name != "" {
		for _, msg := range path.ValidatePathSegmentName(ref.Name, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), ref.Name, msg))
		}
		if ref.Selector != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("name"), `name and selector are mutually exclusive`))
		}
	}
	if ref.Selector != nil {
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(ref.Selector, metav1validation.LabelSelectorValidationOptions{}, fldPath.Child("selector"))...)
		if ref.Name != "" {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("selector"), `name and selector are mutually exclusive`))
		}
	}
	if ref.Name == "" && ref.Selector == nil {
		allErrs = append(allErrs, field.Required(fldPath, `one of name or selector must be specified`))
	}
	actionPath := fldPath.Child("parameterNotFoundAction")
	if a := ref.ParameterNotFoundAction; a == nil || *a == "" {
		allErrs = append(allErrs, field.Required(actionPath, ""))
	} else if *a != admissionregistrationv1.DenyAction && *a != admissionregistrationv1.AllowAction {
		allErrs = append(allErrs, field.NotSupported(actionPath, ref.ParameterNotFoundAction, []string{string(admissionregistrationv1.DenyAction), string(admissionregistrationv1.AllowAction)}))
	}
	return allErrs
}

func validateValidationActions(actions []admissionregistrationv1.ValidationAction, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := map[admissionregistrationv1.ValidationAction]bool{}
	for i, a := range actions {
		if !slices.Contains(supportedValidationActions, string(a)) {
			allErrs = append(allErrs, field.NotSupported(fldPath.Index(i), a, supportedValidationActions))
		}
		if seen[a] {
			allErrs = append(allErrs, field.Duplicate(fldPath.Index(i), a))
		}
		seen[a] = true
	}
	if seen[admissionregistrationv1.Deny] && seen[admissionregistrationv1.Warn] {
		allErrs = append(allErrs, field.Invalid(fldPath, actions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "at least one validation action is required"))
	}
	return allErrs
}
