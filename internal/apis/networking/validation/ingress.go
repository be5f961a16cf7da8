package validation

import (
	"fmt"
	"net"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// annotationIngressClass is the legacy way to name an ingress's class.
const annotationIngressClass = "kubernetes.io/ingress.class"

var (
	supportedPathTypes   = sets.New(string(networkingv1.PathTypeExact), string(networkingv1.PathTypePrefix), string(networkingv1.PathTypeImplementationSpecific))
	invalidPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	invalidPathSuffixes  = []string{"/..", "/."}
)

// ValidateIngressName is the name rule of ingresses: a DNS subdomain.
var ValidateIngressName = apimachineryvalidation.NameIsDNSSubdomain

// ingressOptions tolerate, on update, what the stored ingress already had
// before a rule was added.
type ingressOptions struct {
	allowInvalidSecretName       bool
	allowInvalidWildcardHostRule bool
}

// ValidateIngressCreate checks a new ingress. The class annotation and
// spec.ingressClassName may not both be set.
func ValidateIngressCreate(ing *networkingv1.Ingress) field.ErrorList {
	allErrs := validateIngress(ing, ingressOptions{})
	if v, ok := ing.Annotations[annotationIngressClass]; ok && ing.Spec.IngressClassName != nil {
		allErrs = append(allErrs, field.Invalid(field.NewPath("annotations").Child(annotationIngressClass), v, "can not be set when the class field is also set"))
	}
	return allErrs
}

// ValidateIngressUpdate checks an update of the main resource.
func ValidateIngressUpdate(ing, old *networkingv1.Ingress) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&ing.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	opts := ingressOptions{
		allowInvalidSecretName:       hasInvalidSecretName(&old.Spec),
		allowInvalidWildcardHostRule: hasInvalidWildcardHostRule(&old.Spec),
	}
	return append(allErrs, validateIngress(ing, opts)...)
}

// ValidateIngressStatusUpdate checks a write of ingresses/status.
func ValidateIngressStatusUpdate(ing, old *networkingv1.Ingress) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&ing.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, validateIngressLoadBalancerStatus(&ing.Status.LoadBalancer, field.NewPath("status", "loadBalancer"))...)
}

func validateIngress(ing *networkingv1.Ingress, opts ingressOptions) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&ing.ObjectMeta, true, ValidateIngressName, field.NewPath("metadata"))
	return append(allErrs, validateIngressSpec(&ing.Spec, field.NewPath("spec"), opts)...)
}

func validateIngressSpec(spec *networkingv1.IngressSpec, fldPath *field.Path, opts ingressOptions) field.ErrorList {
	var allErrs field.ErrorList
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		allErrs = append(allErrs, field.Invalid(fldPath, spec.Rules, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		allErrs = append(allErrs, validateIngressBackend(spec.DefaultBackend, fldPath.Child("defaultBackend"))...)
	}
	allErrs = append(allErrs, validateIngressRules(spec.Rules, fldPath.Child("rules"), opts)...)
	allErrs = append(allErrs, validateIngressTLS(spec.TLS, fldPath.Child("tls"), opts)...)
	if spec.IngressClassName != nil {
		for _, msg := range ValidateIngressClassName(*spec.IngressClassName, false) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("ingressClassName"), *spec.IngressClassName, msg))
		}
	}
	return allErrs
}

func validateIngressTLS(tls []networkingv1.IngressTLS, fldPath *field.Path, opts ingressOptions) field.ErrorList {
	var allErrs field.ErrorList
	for i, t := range tls {
		for j, host := range t.Hosts {
			hostPath := fldPath.Index(i).Child("hosts").Index(j)
			for _, msg := range hostErrors(host) {
				allErrs = append(allErrs, field.Invalid(hostPath, host, msg))
			}
		}
		if !opts.allowInvalidSecretName {
			for _, msg := range secretNameErrors(t.SecretName) {
				allErrs = append(allErrs, field.Invalid(fldPath.Index(i).Child("secretName"), t.SecretName, msg))
			}
		}
	}
	return allErrs
}

// hostErrors checks a host name, which may start with a "*." wildcard.
func hostErrors(host string) []string {
	if strings.Contains(host, "*") {
		return validation.IsWildcardDNS1123Subdomain(host)
	}
	return validation.IsDNS1123Subdomain(host)
}

func secretNameErrors(name string) []string {
	if name == "" {
		return nil
	}
	return apimachineryvalidation.NameIsDNSSubdomain(name, false)
}

func validateIngressRules(rules []networkingv1.IngressRule, fldPath *field.Path, opts ingressOptions) field.ErrorList {
	var allErrs field.ErrorList
	for i, rule := range rules {
		wildcard := false
		if rule.Host != "" {
			hostPath := fldPath.Index(i).Child("host")
			if net.ParseIP(rule.Host) != nil {
				allErrs = append(allErrs, field.Invalid(hostPath, rule.Host, "must be a DNS name, not an IP address"))
			}
			wildcard = strings.Contains(rule.Host, "*")
			for _, msg := range hostErrors(rule.Host) {
				allErrs = append(allErrs, field.Invalid(hostPath, rule.Host, msg))
			}
		}
		if !wildcard || !opts.allowInvalidWildcardHostRule {
			allErrs = append(allErrs, validateIngressRuleValue(&rule.IngressRuleValue, fldPath.Index(i))...)
		}
	}
	return allErrs
}

func validateIngressRuleValue(rule *networkingv1.IngressRuleValue, fldPath *field.Path) field.ErrorList {
	if rule.HTTP == nil {
		return nil
	}
	httpPath := fldPath.Child("http")
	var allErrs field.ErrorList
	if len(rule.HTTP.Paths) == 0 {
		allErrs = append(allErrs, field.Required(httpPath.Child("paths"), ""))
	}
	for i := range rule.HTTP.Paths {
		allErrs = append(allErrs, validateHTTPIngressPath(&rule.HTTP.Paths[i], httpPath.Child("paths").Index(i))...)
	}
	return allErrs
}

func validateHTTPIngressPath(p *networkingv1.HTTPIngressPath, fldPath *field.Path) field.ErrorList {
	if p.PathType == nil {
		return field.ErrorList{field.Required(fldPath.Child("pathType"), "pathType must be specified")}
	}
	var allErrs field.ErrorList
	pathPath := fldPath.Child("path")
	switch *p.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(p.Path, "/") {
			allErrs = append(allErrs, field.Invalid(pathPath, p.Path, "must be an absolute path"))
		}
		for _, seq := range invalidPathSequences {
			if strings.Contains(p.Path, seq) {
				allErrs = append(allErrs, field.Invalid(pathPath, p.Path, fmt.Sprintf("must not contain '%s'", seq)))
			}
		}
		for _, suffix := range invalidPathSuffixes {
			if strings.HasSuffix(p.Path, suffix) {
				allErrs = append(allErrs, field.Invalid(pathPath, p.Path, fmt.Sprintf("cannot end with '%s'", suffix)))
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if p.Path != "" && !strings.HasPrefix(p.Path, "/") {
			allErrs = append(allErrs, field.Invalid(pathPath, p.Path, "must be an absolute path"))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("pathType"), *p.PathType, sets.List(supportedPathTypes)))
	}
	return append(allErrs, validateIngressBackend(&p.Backend, fldPath.Child("backend"))...)
}

// validateIngressBackend requires exactly one of a service (with a port
// name or number) and a resource.
func validateIngressBackend(b *networkingv1.IngressBackend, fldPath *field.Path) field.ErrorList {
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Invalid(fldPath, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		return validateTypedLocalObjectReference(b.Resource.APIGroup, b.Resource.Kind, b.Resource.Name, fldPath.Child("resource"))
	case b.Service == nil:
		return field.ErrorList{field.Invalid(fldPath, "", "resource or service backend is required")}
	}
	var allErrs field.ErrorList
	svc := b.Service
	namePath := fldPath.Child("service", "name")
	if svc.Name == "" {
		allErrs = append(allErrs, field.Required(namePath, ""))
	} else {
		for _, msg := range apimachineryvalidation.NameIsDNS1035Label(svc.Name, false) {
			allErrs = append(allErrs, field.Invalid(namePath, svc.Name, msg))
		}
	}
	hasName, hasNumber := svc.Port.Name != "", svc.Port.Number != 0
	portPath := fldPath.Child("service", "port")
	switch {
	case hasName && hasNumber:
		allErrs = append(allErrs, field.Invalid(fldPath, "", "cannot set both port name & port number"))
	case hasName:
		for _, msg := range validation.IsValidPortName(svc.Port.Name) {
			allErrs = append(allErrs, field.Invalid(portPath.Child("name"), svc.Port.Name, msg))
		}
	case hasNumber:
		for _, msg := range validation.IsValidPortNum(int(svc.Port.Number)) {
			allErrs = append(allErrs, field.Invalid(portPath.Child("number"), svc.Port.Number, msg))
		}
	default:
		allErrs = append(allErrs, field.Required(fldPath, "port name or number is required"))
	}
	return allErrs
}

// validateTypedLocalObjectReference checks a reference to another object
// (a resource backend or ingress class parameters).
func validateTypedLocalObjectReference(apiGroup *string, kind, name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if apiGroup != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*apiGroup) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("apiGroup"), *apiGroup, msg))
		}
	}
	if kind == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("kind"), "kind is required"))
	} else {
		for _, msg := range path.IsValidPathSegmentName(kind) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("kind"), kind, msg))
		}
	}
	if name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), "name is required"))
	} else {
		for _, msg := range path.IsValidPathSegmentName(name) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), name, msg))
		}
	}
	return allErrs
}

func validateIngressLoadBalancerStatus(status *networkingv1.IngressLoadBalancerStatus, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, ing := range status.Ingress {
		idxPath := fldPath.Child("ingress").Index(i)
		if ing.IP != "" {
			allErrs = append(allErrs, validation.IsValidIP(idxPath.Child("ip"), ing.IP)...)
		}
		if ing.Hostname != "" {
			for _, msg := range validation.IsDNS1123Subdomain(ing.Hostname) {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("hostname"), ing.Hostname, msg))
			}
			if net.ParseIP(ing.Hostname) != nil {
				allErrs = append(allErrs, field.Invalid(idxPath.Child("hostname"), ing.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return allErrs
}

func hasInvalidSecretName(spec *networkingv1.IngressSpec) bool {
	for _, t := range spec.TLS {
		if len(secretNameErrors(t.SecretName)) > 0 {
			return true
		}
	}
	return false
}

func hasInvalidWildcardHostRule(spec *networkingv1.IngressSpec) bool {
	for i, rule := range spec.Rules {
		if strings.Contains(rule.Host, "*") && len(validateIngressRuleValue(&spec.Rules[i].IngressRuleValue, field.NewPath("x"))) > 0 {
			return true
		}
	}
	return false
}
