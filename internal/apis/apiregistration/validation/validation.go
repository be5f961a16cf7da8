// Package validation checks apiregistration.k8s.io/v1 APIService objects
// the way kube-apiserver does (same rules, field paths and messages),
// against upstream's v1 types.
package validation

import (
	"fmt"
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Upstream's bounds of the two priorities, both inclusive.
const (
	maxGroupPriorityMinimum = 20000
	maxVersionPriority      = 1000
)

// ValidateAPIService checks an APIService: its name is
// "<version>.<group>", the group a DNS subdomain (empty only for the
// legacy v1), the version a DNS label, the priorities in range, and a
// local APIService (no service) carries no TLS settings.
func ValidateAPIService(s *apiregistrationv1.APIService) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMeta(&s.ObjectMeta, false, nameFunc(s.Spec), field.NewPath("metadata"))
	return append(allErrs, validateSpec(&s.Spec, field.NewPath("spec"))...)
}

// nameFunc accepts only the name spec asks for.
func nameFunc(spec apiregistrationv1.APIServiceSpec) apimachineryvalidation.ValidateNameFunc {
	required := spec.Version + "." + spec.Group
	return func(name string, _ bool) []string {
		if msgs := path.IsValidPathSegmentName(name); len(msgs) > 0 {
			return msgs
		}
		if name != required {
			return []string{fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", required)}
		}
		return nil
	}
}

func validateSpec(spec *apiregistrationv1.APIServiceSpec, fld *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.Group == "" && spec.Version != "v1" {
		allErrs = append(allErrs, field.Required(fld.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	}
	if spec.Group != "" {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(spec.Group) {
			allErrs = append(allErrs, field.Invalid(fld.Child("group"), spec.Group, msg))
		}
	}
	for _, msg := range utilvalidation.IsDNS1035Label(spec.Version) {
		allErrs = append(allErrs, field.Invalid(fld.Child("version"), spec.Version, msg))
	}
	if spec.GroupPriorityMinimum <= 0 || spec.GroupPriorityMinimum > maxGroupPriorityMinimum {
		allErrs = append(allErrs, field.Invalid(fld.Child("groupPriorityMinimum"), spec.GroupPriorityMinimum, "must be positive and less than 20000"))
	}
	if spec.VersionPriority <= 0 || spec.VersionPriority > maxVersionPriority {
		allErrs = append(allErrs, field.Invalid(fld.Child("versionPriority"), spec.VersionPriority, "must be positive and less than 1000"))
	}
	if spec.Service == nil {
		if len(spec.CABundle) != 0 {
			allErrs = append(allErrs, field.Invalid(fld.Child("caBundle"), fmt.Sprintf("%d bytes", len(spec.CABundle)), "local APIServices may not have a caBundle"))
		}
		if spec.InsecureSkipTLSVerify {
			allErrs = append(allErrs, field.Invalid(fld.Child("insecureSkipTLSVerify"), spec.InsecureSkipTLSVerify, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return allErrs
	}
	return append(allErrs, validateService(spec, fld)...)
}

// validateService checks the reference of a remote APIService; its port
// is defaulted to 443 before validation.
func validateService(spec *apiregistrationv1.APIServiceSpec, fld *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	svc, svcPath := spec.Service, fld.Child("service")
	if svc.Namespace == "" {
		allErrs = append(allErrs, field.Required(svcPath.Child("namespace"), ""))
	}
	if svc.Name == "" {
		allErrs = append(allErrs, field.Required(svcPath.Child("name"), ""))
	}
	port := int32(0)
	if svc.Port != nil {
		port = *svc.Port
	}
	if msgs := utilvalidation.IsValidPortNum(int(port)); msgs != nil {
		allErrs = append(allErrs, field.Invalid(svcPath.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if spec.InsecureSkipTLSVerify && len(spec.CABundle) > 0 {
		allErrs = append(allErrs, field.Invalid(fld.Child("insecureSkipTLSVerify"), spec.InsecureSkipTLSVerify, "may not be true if caBundle is present"))
	}
	return allErrs
}

// ValidateAPIServiceUpdate checks an update: the metadata rules of an
// update and everything ValidateAPIService checks.
func ValidateAPIServiceUpdate(s, old *apiregistrationv1.APIService) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateAPIService(s)...)
}

// ValidateAPIServiceStatusUpdate checks a write of the status
// subresource: every condition's status is True, False or Unknown.
func ValidateAPIServiceStatusUpdate(s, old *apiregistrationv1.APIService) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	supported := []string{string(apiregistrationv1.ConditionTrue), string(apiregistrationv1.ConditionFalse), string(apiregistrationv1.ConditionUnknown)}
	for i, c := range s.Status.Conditions {
		switch c.Status {
		case apiregistrationv1.ConditionTrue, apiregistrationv1.ConditionFalse, apiregistrationv1.ConditionUnknown:
		default:
			allErrs = append(allErrs, field.NotSupported(field.NewPath("status", "conditions").Index(i).Child("status"), c.Status, supported))
		}
	}
	return allErrs
}
