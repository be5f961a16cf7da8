package validation

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// acceptedAdmissionReviewVersions are the AdmissionReview versions the
// server can send.
var acceptedAdmissionReviewVersions = []string{"v1", "v1beta1"}

var (
	allSideEffectClasses = []string{"None", "NoneOnDryRun", "Some", "Unknown"}
	noSideEffectClasses  = []string{"None", "NoneOnDryRun"}
)

// webhook is what validating and mutating webhooks share, so one function
// checks both.
type webhook struct {
	name                    string
	clientConfig            admissionregistrationv1.WebhookClientConfig
	rules                   []admissionregistrationv1.RuleWithOperations
	failurePolicy           *admissionregistrationv1.FailurePolicyType
	matchPolicy             *admissionregistrationv1.MatchPolicyType
	namespaceSelector       *metav1.LabelSelector
	objectSelector          *metav1.LabelSelector
	sideEffects             *admissionregistrationv1.SideEffectClass
	timeoutSeconds          *int32
	admissionReviewVersions []string
	matchConditions         []admissionregistrationv1.MatchCondition
	reinvocationPolicy      *admissionregistrationv1.ReinvocationPolicyType
}

func validatingWebhooks(hooks []admissionregistrationv1.ValidatingWebhook) []webhook {
	out := make([]webhook, 0, len(hooks))
	for _, h := range hooks {
		out = append(out, webhook{h.Name, h.ClientConfig, h.Rules, h.FailurePolicy, h.MatchPolicy, h.NamespaceSelector,
			h.ObjectSelector, h.SideEffects, h.TimeoutSeconds, h.AdmissionReviewVersions, h.MatchConditions, nil})
	}
	return out
}

func mutatingWebhooks(hooks []admissionregistrationv1.MutatingWebhook) []webhook {
	out := make([]webhook, 0, len(hooks))
	for _, h := range hooks {
		out = append(out, webhook{h.Name, h.ClientConfig, h.Rules, h.FailurePolicy, h.MatchPolicy, h.NamespaceSelector,
			h.ObjectSelector, h.SideEffects, h.TimeoutSeconds, h.AdmissionReviewVersions, h.MatchConditions, h.ReinvocationPolicy})
	}
	return out
}

// webhookOptions are the rules an update may relax when the stored object
// already broke them, so that old objects stay writable.
type webhookOptions struct {
	requireNoSideEffects                    bool
	requireRecognizedAdmissionReviewVersion bool
	requireUniqueWebhookNames               bool
	allowInvalidLabelValueInSelector        bool
}

var strictWebhookOptions = webhookOptions{
	requireNoSideEffects:                    true,
	requireRecognizedAdmissionReviewVersion: true,
	requireUniqueWebhookNames:               true,
}

// updateWebhookOptions keeps each rule only if the stored webhooks all
// follow it.
func updateWebhookOptions(old []webhook) webhookOptions {
	opts := strictWebhookOptions
	names := map[string]bool{}
	for _, h := range old {
		if h.sideEffects == nil || !slices.Contains(noSideEffectClasses, string(*h.sideEffects)) {
			opts.requireNoSideEffects = false
		}
		if len(h.admissionReviewVersions) > 0 && !slices.ContainsFunc(h.admissionReviewVersions, isAcceptedVersion) {
			opts.requireRecognizedAdmissionReviewVersion = false
		}
		if names[h.name] {
			opts.requireUniqueWebhookNames = false
		}
		names[h.name] = true
		for _, s := range []*metav1.LabelSelector{h.namespaceSelector, h.objectSelector} {
			if s != nil && metav1validation.LabelSelectorHasInvalidLabelValue(s) {
				opts.allowInvalidLabelValueInSelector = true
			}
		}
	}
	return opts
}

func isAcceptedVersion(v string) bool { return slices.Contains(acceptedAdmissionReviewVersions, v) }

// ValidateValidatingWebhookConfiguration checks a new configuration.
func ValidateValidatingWebhookConfiguration(c *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	return validateWebhookConfiguration(&c.ObjectMeta, validatingWebhooks(c.Webhooks), strictWebhookOptions)
}

// ValidateValidatingWebhookConfigurationUpdate checks an update; rules the
// stored object already broke are not enforced.
func ValidateValidatingWebhookConfigurationUpdate(c, old *admissionregistrationv1.ValidatingWebhookConfiguration) field.ErrorList {
	allErrs := validateWebhookConfiguration(&c.ObjectMeta, validatingWebhooks(c.Webhooks), updateWebhookOptions(validatingWebhooks(old.Webhooks)))
	return append(allErrs, corevalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// ValidateMutatingWebhookConfiguration checks a new configuration.
func ValidateMutatingWebhookConfiguration(c *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	return validateWebhookConfiguration(&c.ObjectMeta, mutatingWebhooks(c.Webhooks), strictWebhookOptions)
}

// ValidateMutatingWebhookConfigurationUpdate checks an update; rules the
// stored object already broke are not enforced.
func ValidateMutatingWebhookConfigurationUpdate(c, old *admissionregistrationv1.MutatingWebhookConfiguration) field.ErrorList {
	allErrs := validateWebhookConfiguration(&c.ObjectMeta, mutatingWebhooks(c.Webhooks), updateWebhookOptions(mutatingWebhooks(old.Webhooks)))
	return append(allErrs, corevalidation.ValidateObjectMetaUpdate(&c.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

func validateWebhookConfiguration(meta *metav1.ObjectMeta, hooks []webhook, opts webhookOptions) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(meta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	names := map[string]bool{}
	for i, h := range hooks {
		hookPath := field.NewPath("webhooks").Index(i)
		allErrs = append(allErrs, validateWebhook(&h, opts, hookPath)...)
		allErrs = append(allErrs, validateAdmissionReviewVersions(h.admissionReviewVersions, opts.requireRecognizedAdmissionReviewVersion, hookPath.Child("admissionReviewVersions"))...)
		if opts.requireUniqueWebhookNames && h.name != "" {
			if names[h.name] {
				allErrs = append(allErrs, field.Duplicate(hookPath.Child("name"), h.name))
			}
			names[h.name] = true
		}
	}
	return allErrs
}

func validateWebhook(h *webhook, opts webhookOptions, fldPath *field.Path) field.ErrorList {
	allErrs := validation.IsFullyQualifiedName(fldPath.Child("name"), h.name)
	for i := range h.rules {
		allErrs = append(allErrs, validateRuleWithOperations(&h.rules[i], fldPath.Child("rules").Index(i))...)
	}
	if h.failurePolicy != nil && !slices.Contains(supportedFailurePolicies, string(*h.failurePolicy)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("failurePolicy"), *h.failurePolicy, supportedFailurePolicies))
	}
	if h.matchPolicy != nil && !slices.Contains(supportedMatchPolicies, string(*h.matchPolicy)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("matchPolicy"), *h.matchPolicy, supportedMatchPolicies))
	}
	allowedSideEffects := allSideEffectClasses
	if opts.requireNoSideEffects {
		allowedSideEffects = noSideEffectClasses
	}
	if h.sideEffects == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("sideEffects"), fmt.Sprintf("must specify one of %v", strings.Join(allowedSideEffects, ", "))))
	} else if !slices.Contains(allowedSideEffects, string(*h.sideEffects)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("sideEffects"), *h.sideEffects, allowedSideEffects))
	}
	if t := h.timeoutSeconds; t != nil && (*t > 30 || *t < 1) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	selectorOpts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: opts.allowInvalidLabelValueInSelector}
	if h.namespaceSelector != nil {
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(h.namespaceSelector, selectorOpts, fldPath.Child("namespaceSelector"))...)
	}
	if h.objectSelector != nil {
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(h.objectSelector, selectorOpts, fldPath.Child("objectSelector"))...)
	}
	if h.reinvocationPolicy != nil && !slices.Contains(supportedReinvocationPolicies, string(*h.reinvocationPolicy)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("reinvocationPolicy"), *h.reinvocationPolicy, supportedReinvocationPolicies))
	}
	allErrs = append(allErrs, validateClientConfig(&h.clientConfig, fldPath.Child("clientConfig"))...)
	return append(allErrs, validateMatchConditions(h.matchConditions, fldPath.Child("matchConditions"))...)
}

func validateAdmissionReviewVersions(versions []string, requireRecognized bool, fldPath *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(fldPath, fmt.Sprintf("must specify one of %v", strings.Join(acceptedAdmissionReviewVersions, ", ")))}
	}
	var allErrs field.ErrorList
	seen := map[string]bool{}
	for i, v := range versions {
		if seen[v] {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range validation.IsDNS1035Label(v) {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), v, msg))
		}
	}
	if requireRecognized && !slices.ContainsFunc(versions, isAcceptedVersion) {
		allErrs = append(allErrs, field.Invalid(fldPath, versions, fmt.Sprintf("must include at least one of %v", strings.Join(acceptedAdmissionReviewVersions, ", "))))
	}
	return allErrs
}

// validateClientConfig: exactly one of an https URL or a service.
func validateClientConfig(cc *admissionregistrationv1.WebhookClientConfig, fldPath *field.Path) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(fldPath, "exactly one of url or service is required")}
	case cc.URL != nil:
		return ValidateWebhookURL(fldPath.Child("url"), *cc.URL)
	default:
		port := int32(443)
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		return ValidateWebhookService(fldPath.Child("service"), cc.Service.Namespace, cc.Service.Name, cc.Service.Path, port)
	}
}

// ValidateWebhookURL checks the URL of a webhook client config, as upstream:
// https, a host, no user information, fragment or query.
func ValidateWebhookURL(fldPath *field.Path, raw string) field.ErrorList {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return field.ErrorList{field.Required(fldPath, "url must be a valid URL: "+err.Error()+form)}
	}
	var allErrs field.ErrorList
	if u.Scheme != "https" {
		allErrs = append(allErrs, field.Invalid(fldPath, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		allErrs = append(allErrs, field.Invalid(fldPath, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		// The value is redacted: user information may be a password.
		allErrs = append(allErrs, field.Invalid(fldPath, "<redacted>", "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		allErrs = append(allErrs, field.Invalid(fldPath, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		allErrs = append(allErrs, field.Invalid(fldPath, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return allErrs
}

// ValidateWebhookService checks the service reference of a webhook client
// config: name, namespace, port and path.
func ValidateWebhookService(fldPath *field.Path, namespace, name string, path *string, port int32) field.ErrorList {
	var allErrs field.ErrorList
	if name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	if namespace == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("namespace"), ""))
	}
	if errs := validation.IsValidPortNum(int(port)); errs != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("port"), port, "port is not valid: "+strings.Join(errs, ", ")))
	}
	if path == nil || *path == "" || *path == "/" {
		return allErrs
	}
	p := *path
	pathPath := fldPath.Child("path")
	if p == "//" {
		return append(allErrs, field.Invalid(pathPath, p, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(p, "/") {
		allErrs = append(allErrs, field.Invalid(pathPath, p, "must start with a '/'"))
	}
	for i, step := range strings.Split(strings.TrimSuffix(p[1:], "/"), "/") {
		if step == "" {
			allErrs = append(allErrs, field.Invalid(pathPath, p, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range validation.IsDNS1123Subdomain(step) {
			allErrs = append(allErrs, field.Invalid(pathPath, p, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return allErrs
}
