package validation

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/transport"

	admissionvalidation "github.com/kapi-dev/kapi/internal/apis/admissionregistration/validation"
)

// acceptedConversionReviewVersions are the ConversionReview versions kapi
// can send to a webhook, sorted.
var acceptedConversionReviewVersions = []string{"v1", "v1beta1"}

func isAcceptedConversionReviewVersion(v string) bool {
	for _, a := range acceptedConversionReviewVersions {
		if a == v {
			return true
		}
	}
	return false
}

func hasAcceptedConversionReviewVersionOrEmpty(versions []string) bool {
	if len(versions) == 0 {
		return true
	}
	for _, v := range versions {
		if isAcceptedConversionReviewVersion(v) {
			return true
		}
	}
	return false
}

// validateConversion checks the strategy and that a webhook is configured
// exactly when the strategy is Webhook. Paths name the fields of
// upstream's internal version (webhookClientConfig and
// conversionReviewVersions directly under conversion), as kube-apiserver
// reports them.
func validateConversion(c *apiextensionsv1.CustomResourceConversion, opts options, fldPath *field.Path) field.ErrorList {
	if c == nil {
		return nil
	}
	allErrs := validateEnum(fldPath.Child("strategy"), string(c.Strategy), []string{string(apiextensionsv1.NoneConverter), string(apiextensionsv1.WebhookConverter)})
	var cc *apiextensionsv1.WebhookClientConfig
	var reviewVersions []string
	if c.Webhook != nil {
		cc, reviewVersions = c.Webhook.ClientConfig, c.Webhook.ConversionReviewVersions
	}
	if c.Strategy != apiextensionsv1.WebhookConverter {
		if cc != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("webhookClientConfig"), "should not be set when strategy is not set to Webhook"))
		}
		if len(reviewVersions) > 0 {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("conversionReviewVersions"), "should not be set when strategy is not set to Webhook"))
		}
		return allErrs
	}
	ccPath := fldPath.Child("webhookClientConfig")
	if cc == nil {
		allErrs = append(allErrs, field.Required(ccPath, "required when strategy is set to Webhook"))
	} else {
		switch {
		case (cc.URL == nil) == (cc.Service == nil):
			allErrs = append(allErrs, field.Required(ccPath, "exactly one of url or service is required"))
		case cc.URL != nil:
			allErrs = append(allErrs, admissionvalidation.ValidateWebhookURL(ccPath.Child("url"), *cc.URL)...)
		default:
			port := int32(443)
			if cc.Service.Port != nil {
				port = *cc.Service.Port
			}
			allErrs = append(allErrs, admissionvalidation.ValidateWebhookService(ccPath.Child("service"), cc.Service.Namespace, cc.Service.Name, cc.Service.Path, port)...)
		}
		if len(cc.CABundle) > 0 && !opts.allowInvalidCABundle {
			allErrs = append(allErrs, validateCABundle(ccPath.Child("caBundle"), cc.CABundle)...)
		}
	}
	return append(allErrs, validateConversionReviewVersions(reviewVersions, opts.requireRecognizedConversionReviewVersion, fldPath.Child("conversionReviewVersions"))...)
}

func validateConversionReviewVersions(versions []string, requireRecognized bool, fldPath *field.Path) field.ErrorList {
	if len(versions) == 0 {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var allErrs field.ErrorList
	seen := map[string]bool{}
	accepted := false
	for i, v := range versions {
		if seen[v] {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), v, msg))
		}
		if isAcceptedConversionReviewVersion(v) {
			accepted = true
		}
	}
	if requireRecognized && !accepted {
		allErrs = append(allErrs, field.Invalid(fldPath, versions, fmt.Sprintf("must include at least one of %v", strings.Join(acceptedConversionReviewVersions, ", "))))
	}
	return allErrs
}

// allowInvalidCABundle keeps a bad CA bundle editable: it is only checked
// once the CRD is established and its stored bundle was valid.
func allowInvalidCABundle(old *apiextensionsv1.CustomResourceDefinition) bool {
	if !isConditionTrue(old, apiextensionsv1.Established) {
		return true
	}
	c := old.Spec.Conversion
	if c == nil || c.Webhook == nil || c.Webhook.ClientConfig == nil || len(c.Webhook.ClientConfig.CABundle) == 0 {
		return false
	}
	return len(validateCABundle(field.NewPath("caBundle"), c.Webhook.ClientConfig.CABundle)) > 0
}

func validateCABundle(fldPath *field.Path, bundle []byte) field.ErrorList {
	if _, err := transport.TLSConfigFor(&transport.Config{TLS: transport.TLSConfig{CAData: bundle}}); err != nil {
		return field.ErrorList{field.Invalid(fldPath, bundle, err.Error())}
	}
	return nil
}
