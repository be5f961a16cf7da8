package validation

import (
	"encoding/json"
	"fmt"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateName is the name rule of every resource.k8s.io kind.
var ValidateName = apimachineryvalidation.NameIsDNSSubdomain

// validateDriverName checks a DRA driver name: required, at most 63
// characters, a DNS subdomain.
func validateDriverName(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	if len(name) > resourcev1.DriverNameMaxLength {
		allErrs = append(allErrs, field.TooLong(fldPath, name, resourcev1.DriverNameMaxLength))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(name)) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}

// validateDNSLabel checks a request, sub-request or device name.
func validateDNSLabel(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(name) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}

func validateDNSSubdomain(name string, fldPath *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}

// validateSelectors requires a non-empty CEL expression in each selector;
// the expression itself is not compiled.
func validateSelectors(selectors []resourcev1.DeviceSelector, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(selectors) > resourcev1.DeviceSelectorsMaxSize {
		allErrs = append(allErrs, field.TooMany(fldPath, len(selectors), resourcev1.DeviceSelectorsMaxSize))
	}
	for i, s := range selectors {
		path := fldPath.Index(i)
		switch {
		case s.CEL == nil:
			allErrs = append(allErrs, field.Required(path.Child("cel"), ""))
		case s.CEL.Expression == "":
			allErrs = append(allErrs, field.Required(path.Child("cel", "expression"), ""))
		case len(s.CEL.Expression) > resourcev1.CELSelectorExpressionMaxLength:
			allErrs = append(allErrs, field.TooLong(path.Child("cel", "expression"), "", resourcev1.CELSelectorExpressionMaxLength))
		}
	}
	return allErrs
}

// validateDeviceConfiguration requires opaque configuration for a driver
// with a JSON object as parameters.
func validateDeviceConfiguration(config resourcev1.DeviceConfiguration, fldPath *field.Path) field.ErrorList {
	if config.Opaque == nil {
		return field.ErrorList{field.Required(fldPath.Child("opaque"), "")}
	}
	path := fldPath.Child("opaque")
	allErrs := validateDriverName(config.Opaque.Driver, path.Child("driver"))
	raw := config.Opaque.Parameters.Raw
	paramsPath := path.Child("parameters")
	switch {
	case len(raw) == 0:
		allErrs = append(allErrs, field.Required(paramsPath, ""))
	case len(raw) > resourcev1.OpaqueParametersMaxLength:
		allErrs = append(allErrs, field.TooLong(paramsPath, "" /* unused */, resourcev1.OpaqueParametersMaxLength))
	default:
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			allErrs = append(allErrs, field.Invalid(paramsPath, "<value omitted>", fmt.Sprintf("error parsing data as JSON: %v", err)))
		} else if _, ok := v.(map[string]any); !ok {
			allErrs = append(allErrs, field.Invalid(paramsPath, "<value omitted>", "parameters must be a valid JSON object"))
		}
	}
	return allErrs
}

// validateRequestRefs checks that each entry names a request of the
// claim, or a request and one of its sub-requests ("req/sub").
func validateRequestRefs(refs []string, known sets.Set[string], fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, ref := range refs {
		path := fldPath.Index(i)
		if !known.Has(ref) {
			allErrs = append(allErrs, field.Invalid(path, ref, "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"))
		}
		if seen.Has(ref) {
			allErrs = append(allErrs, field.Duplicate(path, ref))
		}
		seen.Insert(ref)
	}
	return allErrs
}
