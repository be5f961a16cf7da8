// Package validation checks CustomResourceDefinitions the way
// kube-apiserver's apiextensions server does: names, versions, printer
// columns, subresources, conversion, stored versions and the basic shape
// of each OpenAPI schema. Structural-schema rules (every field typed,
// metadata restrictions, defaults that survive pruning) and CEL rules are
// checked elsewhere (internal/apiextensions/schema).
//
// Upstream validates its internal version, where the schema, subresources,
// printer columns and selectable fields that all versions share move to
// the spec's top level; errors about them are then reported under
// spec.validation, spec.subresources, spec.additionalPrinterColumns and
// spec.selectableFields. This package reproduces that view so that field
// paths match what kubectl users see from kube-apiserver.
package validation

import (
	"fmt"
	"net/url"
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// APIApprovedAnnotation must be set on CRDs in the protected groups
// *.k8s.io and *.kubernetes.io.
const APIApprovedAnnotation = "api-approved.kubernetes.io"

// MaxSelectableFields is how many selectable fields a version may have.
const MaxSelectableFields = 8

// ValidateCustomResourceDefinition checks a new CRD.
func ValidateCustomResourceDefinition(crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	nameFn := func(name string, prefix bool) []string {
		errs := apimachineryvalidation.NameIsDNSSubdomain(name, prefix)
		if name != crd.Spec.Names.Plural+"."+crd.Spec.Group {
			errs = append(errs, `must be spec.names.plural+"."+spec.group`)
		}
		return errs
	}
	opts := options{
		requireRecognizedConversionReviewVersion: true,
		requireOpenAPISchema:                     true,
		requireValidPropertyType:                 true,
		requireAtomicSetType:                     true,
		requireMapListKeysMapSetValidation:       true,
		// A CRD that is not established yet may carry any CA bundle.
		allowInvalidCABundle: true,
	}
	allErrs := apimachineryvalidation.ValidateObjectMeta(&crd.ObjectMeta, false, nameFn, field.NewPath("metadata"))
	allErrs = append(allErrs, validateSpec(newSpecView(&crd.Spec), opts, field.NewPath("spec"))...)
	allErrs = append(allErrs, ValidateCustomResourceDefinitionStatus(&crd.Status, field.NewPath("status"))...)
	allErrs = append(allErrs, ValidateCustomResourceDefinitionStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions, field.NewPath("status", "storedVersions"))...)
	allErrs = append(allErrs, validateAPIApproval(crd, nil)...)
	allErrs = append(allErrs, validatePreserveUnknownFields(crd, nil)...)
	return allErrs
}

// ValidateCustomResourceDefinitionUpdate checks an update of old to crd.
// Checks that old already failed are relaxed so that a CRD accepted by an
// older server can still be changed.
func ValidateCustomResourceDefinitionUpdate(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	oldView := newSpecView(&old.Spec)
	opts := options{
		requireRecognizedConversionReviewVersion: old.Spec.Conversion == nil || old.Spec.Conversion.Webhook == nil ||
			hasAcceptedConversionReviewVersionOrEmpty(old.Spec.Conversion.Webhook.ConversionReviewVersions),
		requireImmutableNames:              isConditionTrue(old, apiextensionsv1.Established),
		requireOpenAPISchema:               allVersionsHaveSchema(oldView),
		requireValidPropertyType:           !oldView.hasSchemaWith(hasInvalidType),
		requireAtomicSetType:               !oldView.hasSchemaWith(hasNonAtomicSetType),
		requireMapListKeysMapSetValidation: !oldView.hasSchemaWith(hasInvalidMapListKeysMapSet),
		allowInvalidCABundle:               allowInvalidCABundle(old),
		allowTooManySelectableFields:       tooManySelectableFieldsAllowed(newSpecView(&crd.Spec), oldView),
	}
	spec := field.NewPath("spec")
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateSpec(newSpecView(&crd.Spec), opts, spec)...)
	if opts.requireImmutableNames {
		// Scope and kind shape the storage of an established CRD.
		allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(crd.Spec.Scope, old.Spec.Scope, spec.Child("scope"))...)
		allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(crd.Spec.Names.Kind, old.Spec.Names.Kind, spec.Child("names", "kind"))...)
	}
	// Group and plural make up the name, which never changes.
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(crd.Spec.Group, old.Spec.Group, spec.Child("group"))...)
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(crd.Spec.Names.Plural, old.Spec.Names.Plural, spec.Child("names", "plural"))...)
	allErrs = append(allErrs, ValidateCustomResourceDefinitionStatus(&crd.Status, field.NewPath("status"))...)
	allErrs = append(allErrs, ValidateCustomResourceDefinitionStoredVersions(crd.Status.StoredVersions, crd.Spec.Versions, field.NewPath("status", "storedVersions"))...)
	allErrs = append(allErrs, validateAPIApproval(crd, old)...)
	allErrs = append(allErrs, validatePreserveUnknownFields(crd, old)...)
	return allErrs
}

// ValidateUpdateCustomResourceDefinitionStatus checks a write of the
// status subresource.
func ValidateUpdateCustomResourceDefinitionStatus(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&crd.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateCustomResourceDefinitionStatus(&crd.Status, field.NewPath("status"))...)
}

// ValidateCustomResourceDefinitionStatus checks the accepted names.
func ValidateCustomResourceDefinitionStatus(status *apiextensionsv1.CustomResourceDefinitionStatus, fldPath *field.Path) field.ErrorList {
	return ValidateCustomResourceDefinitionNames(&status.AcceptedNames, fldPath.Child("acceptedNames"))
}

// ValidateCustomResourceDefinitionStoredVersions checks that storedVersions
// lists the storage version and only versions still in spec.versions, so
// that no stored object is left without a version to read it in.
func ValidateCustomResourceDefinitionStoredVersions(storedVersions []string, versions []apiextensionsv1.CustomResourceDefinitionVersion, fldPath *field.Path) field.ErrorList {
	if len(storedVersions) == 0 {
		return field.ErrorList{field.Invalid(fldPath, storedVersions, "must have at least one stored version")}
	}
	var allErrs field.ErrorList
	stored := make(map[string]bool, len(storedVersions))
	for _, v := range storedVersions {
		stored[v] = true
	}
	inSpec := make(map[string]bool, len(versions))
	for _, v := range versions {
		inSpec[v.Name] = true
		if v.Storage && !stored[v.Name] {
			allErrs = append(allErrs, field.Invalid(fldPath, storedVersions, "must have the storage version "+v.Name))
		}
	}
	for i, v := range storedVersions {
		if inSpec[v] {
			continue
		}
		allErrs = append(allErrs, field.Invalid(fldPath.Index(i), v, fmt.Sprintf("missing from spec.versions; %[1]s was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in %[1]s and removes %[1]s from status.storedVersions", v)))
	}
	return allErrs
}

// ValidateCustomResourceDefinitionNames checks the formats of names; which
// of them are required is the caller's business (status names may be
// empty).
func ValidateCustomResourceDefinitionNames(names *apiextensionsv1.CustomResourceDefinitionNames, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	label := func(path *field.Path, value string) {
		if value == "" {
			return
		}
		if errs := isDNS1035Label(value); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(path, value, strings.Join(errs, ",")))
		}
	}
	mixedCase := func(path *field.Path, value string) {
		if value == "" {
			return
		}
		if errs := isDNS1035Label(strings.ToLower(value)); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(path, value, "may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
		}
	}
	label(fldPath.Child("plural"), names.Plural)
	label(fldPath.Child("singular"), names.Singular)
	mixedCase(fldPath.Child("kind"), names.Kind)
	mixedCase(fldPath.Child("listKind"), names.ListKind)
	for i, s := range names.ShortNames {
		if errs := isDNS1035Label(s); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("shortNames").Index(i), s, strings.Join(errs, ",")))
		}
	}
	// Equal kinds would make a list indistinguishable from an item.
	if names.Kind != "" && names.Kind == names.ListKind {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("listKind"), names.ListKind, "kind and listKind may not be the same"))
	}
	for i, c := range names.Categories {
		if errs := isDNS1035Label(c); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("categories").Index(i), c, strings.Join(errs, ",")))
		}
	}
	return allErrs
}

// isProtectedGroup says whether group belongs to the Kubernetes project,
// whose APIs need an approval annotation.
func isProtectedGroup(group string) bool {
	return group == "k8s.io" || strings.HasSuffix(group, ".k8s.io") ||
		group == "kubernetes.io" || strings.HasSuffix(group, ".kubernetes.io")
}

type approvalState int

const (
	approvalInvalid approvalState = iota
	approved
	approvalBypassed
	approvalMissing
)

func apiApprovalState(annotations map[string]string) (approvalState, string) {
	value := annotations[APIApprovedAnnotation]
	u, err := url.ParseRequestURI(value)
	switch {
	case value == "":
		return approvalMissing, fmt.Sprintf("protected groups must have approval annotation %q, see https://github.com/kubernetes/enhancements/pull/1111", APIApprovedAnnotation)
	case strings.HasPrefix(value, "unapproved"):
		return approvalBypassed, fmt.Sprintf("not approved: %q", value)
	case err == nil && u.Host != "" && u.Scheme != "":
		return approved, fmt.Sprintf("approved in %v", value)
	default:
		return approvalInvalid, fmt.Sprintf("protected groups must have approval annotation %q with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111", APIApprovedAnnotation)
	}
}

// validateAPIApproval requires the approval annotation on CRDs of the
// protected groups, unless an update leaves its state as it was.
func validateAPIApproval(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	if !isProtectedGroup(crd.Spec.Group) {
		return nil
	}
	state, reason := apiApprovalState(crd.Annotations)
	if old != nil {
		if oldState, _ := apiApprovalState(old.Annotations); oldState == state {
			return nil
		}
	}
	path := field.NewPath("metadata", "annotations").Key(APIApprovedAnnotation)
	switch state {
	case approved, approvalBypassed:
		return nil
	case approvalMissing:
		return field.ErrorList{field.Required(path, reason)}
	default:
		return field.ErrorList{field.Invalid(path, crd.Annotations[APIApprovedAnnotation], reason)}
	}
}

// validatePreserveUnknownFields forbids spec.preserveUnknownFields=true,
// which v1 only keeps for CRDs that had it before.
func validatePreserveUnknownFields(crd, old *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	if old != nil && old.Spec.PreserveUnknownFields {
		return nil
	}
	if crd.Spec.PreserveUnknownFields {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "preserveUnknownFields"), true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead")}
	}
	return nil
}

func isConditionTrue(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == t {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}
