package validation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateSignerName checks a signer name: a domain of at least two DNS
// labels, a slash, and a path of DNS subdomains separated by dots.
func ValidateSignerName(fldPath *field.Path, signerName string) field.ErrorList {
	if signerName == "" {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	segments := strings.Split(signerName, "/")
	if len(segments) != 2 {
		return field.ErrorList{field.Invalid(fldPath, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	domain, path := segments[0], segments[1]
	var el field.ErrorList
	if len(domain) > validation.DNS1123SubdomainMaxLength {
		el = append(el, field.TooLong(fldPath, domain, validation.DNS1123SubdomainMaxLength))
	}
	domainLabels := strings.Split(domain, ".")
	el = append(el, firstLabelErrors(fldPath, domain, domainLabels, validation.IsDNS1123Label)...)
	if len(domainLabels) < 2 {
		el = append(el, field.Invalid(fldPath, domain, "should be a domain with at least two segments separated by dots"))
	}
	el = append(el, firstLabelErrors(fldPath, path, strings.Split(path, "."), validation.IsDNS1123Subdomain)...)
	// The path must fit a DNS label, a subdomain and the dot between them.
	maxPathLength := validation.DNS1123SubdomainMaxLength + validation.DNS1123LabelMaxLength + 1
	maxSignerNameLength := validation.DNS1123SubdomainMaxLength + maxPathLength + 1
	if len(signerName) > maxSignerNameLength {
		el = append(el, field.TooLong(fldPath, signerName, maxSignerNameLength))
	}
	return el
}

// firstLabelErrors reports the errors of the first invalid label only:
// later ones would repeat the same complaint.
func firstLabelErrors(fldPath *field.Path, segment string, labels []string, check func(string) []string) field.ErrorList {
	for _, lbl := range labels {
		msgs := check(lbl)
		if len(msgs) == 0 {
			continue
		}
		var el field.ErrorList
		for _, msg := range msgs {
			el = append(el, field.Invalid(fldPath, segment, fmt.Sprintf("validating label %q: %s", lbl, msg)))
		}
		return el
	}
	return nil
}
