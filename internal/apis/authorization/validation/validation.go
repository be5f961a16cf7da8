// Package validation checks authorization.k8s.io/v1 review requests the way
// kube-apiserver does: the same rules, field paths and messages, written
// against the k8s.io/api types. Reviews are never stored, so only create
// is validated.
package validation

import (
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const exactlyOneAttributes = "exactly one of nonResourceAttributes or resourceAttributes must be specified"

// ValidateSubjectAccessReviewSpec checks the spec of a SubjectAccessReview
// or LocalSubjectAccessReview: one kind of attributes and a subject.
func ValidateSubjectAccessReviewSpec(spec authorizationv1.SubjectAccessReviewSpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateAttributesUnion(spec.ResourceAttributes, spec.NonResourceAttributes, fldPath)
	if len(spec.User) == 0 && len(spec.Groups) == 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("user"), spec.User, "at least one of user or group must be specified"))
	}
	return append(allErrs, validateResourceAttributes(spec.ResourceAttributes, fldPath.Child("resourceAttributes"))...)
}

// ValidateSelfSubjectAccessReviewSpec checks the spec of a
// SelfSubjectAccessReview; the subject is the requester.
func ValidateSelfSubjectAccessReviewSpec(spec authorizationv1.SelfSubjectAccessReviewSpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateAttributesUnion(spec.ResourceAttributes, spec.NonResourceAttributes, fldPath)
	return append(allErrs, validateResourceAttributes(spec.ResourceAttributes, fldPath.Child("resourceAttributes"))...)
}

// ValidateSubjectAccessReview checks a SubjectAccessReview: its spec, and
// metadata left empty (managed fields aside: the handler adds them).
func ValidateSubjectAccessReview(sar *authorizationv1.SubjectAccessReview) field.ErrorList {
	allErrs := ValidateSubjectAccessReviewSpec(sar.Spec, field.NewPath("spec"))
	if !emptyMeta(sar.ObjectMeta, false) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("metadata"), sar.ObjectMeta, "must be empty"))
	}
	return allErrs
}

// ValidateSelfSubjectAccessReview checks a SelfSubjectAccessReview.
func ValidateSelfSubjectAccessReview(sar *authorizationv1.SelfSubjectAccessReview) field.ErrorList {
	allErrs := ValidateSelfSubjectAccessReviewSpec(sar.Spec, field.NewPath("spec"))
	if !emptyMeta(sar.ObjectMeta, false) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("metadata"), sar.ObjectMeta, "must be empty"))
	}
	return allErrs
}

// ValidateLocalSubjectAccessReview checks a LocalSubjectAccessReview: only
// resource attributes, in the object's own namespace.
func ValidateLocalSubjectAccessReview(sar *authorizationv1.LocalSubjectAccessReview) field.ErrorList {
	allErrs := ValidateSubjectAccessReviewSpec(sar.Spec, field.NewPath("spec"))
	if !emptyMeta(sar.ObjectMeta, true) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("metadata"), sar.ObjectMeta, "must be empty except for namespace"))
	}
	if ra := sar.Spec.ResourceAttributes; ra != nil && ra.Namespace != sar.Namespace {
		allErrs = append(allErrs, field.Invalid(field.NewPath("spec", "resourceAttributes", "namespace"), ra.Namespace, "must match metadata.namespace"))
	}
	if sar.Spec.NonResourceAttributes != nil {
		allErrs = append(allErrs, field.Invalid(field.NewPath("spec", "nonResourceAttributes"), sar.Spec.NonResourceAttributes, "disallowed on this kind of request"))
	}
	return allErrs
}

// validateAttributesUnion asks for exactly one of the two attribute kinds;
// upstream reports both mistakes on the spec itself.
func validateAttributesUnion(ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes, fldPath *field.Path) field.ErrorList {
	if (ra == nil) == (nra == nil) {
		return field.ErrorList{field.Invalid(fldPath, nra, exactlyOneAttributes)}
	}
	return nil
}

// emptyMeta says whether meta carries nothing a client may not send;
// managed fields are the handler's, the namespace is allowed on local
// reviews.
func emptyMeta(meta metav1.ObjectMeta, allowNamespace bool) bool {
	meta.ManagedFields = nil
	if allowNamespace {
		meta.Namespace = ""
	}
	return apiequality.Semantic.DeepEqual(metav1.ObjectMeta{}, meta)
}

func validateResourceAttributes(ra *authorizationv1.ResourceAttributes, fldPath *field.Path) field.ErrorList {
	if ra == nil {
		return nil
	}
	var allErrs field.ErrorList
	if s := ra.FieldSelector; s != nil {
		p := fldPath.Child("fieldSelector")
		allErrs = append(allErrs, validateSelectorForm(len(s.RawSelector) > 0, len(s.Requirements) > 0, s.RawSelector, p)...)
		// unknown operators pass: a newer client's check is then only broader
		opts := metav1validation.FieldSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		for i, r := range s.Requirements {
			allErrs = append(allErrs, metav1validation.ValidateFieldSelectorRequirement(r, opts, p.Child("requirements").Index(i))...)
		}
	}
	if s := ra.LabelSelector; s != nil {
		p := fldPath.Child("labelSelector")
		allErrs = append(allErrs, validateSelectorForm(len(s.RawSelector) > 0, len(s.Requirements) > 0, s.RawSelector, p)...)
		opts := metav1validation.LabelSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		for i, r := range s.Requirements {
			allErrs = append(allErrs, metav1validation.ValidateLabelSelectorRequirement(r, opts, p.Child("requirements").Index(i))...)
		}
	}
	return allErrs
}

// validateSelectorForm asks for exactly one of rawSelector and
// requirements.
func validateSelectorForm(hasRaw, hasReqs bool, raw string, fldPath *field.Path) field.ErrorList {
	switch {
	case hasRaw && hasReqs:
		return field.ErrorList{field.Invalid(fldPath.Child("rawSelector"), raw, "may not specified at the same time as requirements")}
	case !hasRaw && !hasReqs:
		return field.ErrorList{field.Required(fldPath.Child("requirements"), fmt.Sprintf("when %s is specified, requirements or rawSelector is required", fldPath))}
	}
	return nil
}
