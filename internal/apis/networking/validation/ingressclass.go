package validation

import (
	networkingv1 "k8s.io/api/networking/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// maxLenIngressClassController is the longest controller name.
const maxLenIngressClassController = 250

var supportedParameterScopes = sets.New(networkingv1.IngressClassParametersReferenceScopeNamespace, networkingv1.IngressClassParametersReferenceScopeCluster)

// ValidateIngressClassName is the name rule of ingress classes, and of
// spec.ingressClassName of an ingress.
var ValidateIngressClassName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateIngressClass checks a new ingress class.
func ValidateIngressClass(ic *networkingv1.IngressClass) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&ic.ObjectMeta, false, ValidateIngressClassName, field.NewPath("metadata"))
	return append(allErrs, validateIngressClassSpec(&ic.Spec, field.NewPath("spec"))...)
}

// ValidateIngressClassUpdate checks an update: the controller is
// immutable.
func ValidateIngressClassUpdate(ic, old *networkingv1.IngressClass) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&ic.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(ic.Spec.Controller, old.Spec.Controller, field.NewPath("spec", "controller"))...)
	return append(allErrs, ValidateIngressClass(ic)...)
}

func validateIngressClassSpec(spec *networkingv1.IngressClassSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	controllerPath := fldPath.Child("controller")
	if len(spec.Controller) > maxLenIngressClassController {
		allErrs = append(allErrs, field.TooLong(controllerPath, spec.Controller, maxLenIngressClassController))
	}
	allErrs = append(allErrs, validation.IsDomainPrefixedPath(controllerPath, spec.Controller)...)
	return append(allErrs, validateIngressClassParameters(spec.Parameters, fldPath.Child("parameters"))...)
}

// validateIngressClassParameters checks the reference and its scope: a
// Namespace scope needs a namespace, a Cluster scope forbids one.
func validateIngressClassParameters(p *networkingv1.IngressClassParametersReference, fldPath *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	allErrs := validateTypedLocalObjectReference(p.APIGroup, p.Kind, p.Name, fldPath)
	if p.Scope == nil {
		return append(allErrs, field.Required(fldPath.Child("scope"), ""))
	}
	scope := *p.Scope
	switch {
	case !supportedParameterScopes.Has(scope):
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("scope"), scope, sets.List(supportedParameterScopes)))
	case scope == networkingv1.IngressClassParametersReferenceScopeNamespace && p.Namespace == nil:
		allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
	case scope == networkingv1.IngressClassParametersReferenceScopeNamespace:
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(*p.Namespace, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("namespace"), *p.Namespace, msg))
		}
	case scope == networkingv1.IngressClassParametersReferenceScopeCluster && p.Namespace != nil:
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
	}
	return allErrs
}
