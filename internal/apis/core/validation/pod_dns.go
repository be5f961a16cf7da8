package validation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Upstream's limits on a pod's resolver configuration, from libc's.
const (
	maxDNSNameservers     = 3
	maxDNSSearchPaths     = 32
	maxDNSSearchListChars = 2048
)

// validatePodHostAliases: each alias is an IP and DNS subdomains.
func validatePodHostAliases(aliases []corev1.HostAlias, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, a := range aliases {
		p := fldPath.Index(i)
		allErrs = append(allErrs, utilvalidation.IsValidIPForLegacyField(p.Child("ip"), a.IP, false, nil)...)
		for j, h := range a.Hostnames {
			for _, msg := range utilvalidation.IsDNS1123Subdomain(h) {
				allErrs = append(allErrs, field.Invalid(p.Child("hostnames").Index(j), h, msg))
			}
		}
	}
	return allErrs
}

// validatePodDNSConfig checks dnsConfig against dnsPolicy: policy None
// needs a config with a nameserver; nameservers, searches and options
// within libc's limits.
func validatePodDNSConfig(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	cfg := spec.DNSConfig
	var allErrs field.ErrorList
	if spec.DNSPolicy == corev1.DNSNone {
		if cfg == nil {
			return field.ErrorList{field.Required(fldPath, "must provide `dnsConfig` when `dnsPolicy` is None")}
		}
		if len(cfg.Nameservers) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None"))
		}
	}
	if cfg == nil {
		return allErrs
	}
	if len(cfg.Nameservers) > maxDNSNameservers {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("nameservers"), cfg.Nameservers,
			fmt.Sprintf("must not have more than %v nameservers", maxDNSNameservers)))
	}
	for i, ns := range cfg.Nameservers {
		allErrs = append(allErrs, utilvalidation.IsValidIPForLegacyField(fldPath.Child("nameservers").Index(i), ns, false, nil)...)
	}
	if len(cfg.Searches) > maxDNSSearchPaths {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("searches"), cfg.Searches,
			fmt.Sprintf("must not have more than %v search paths", maxDNSSearchPaths)))
	}
	if len(strings.Join(cfg.Searches, " ")) > maxDNSSearchListChars {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("searches"), cfg.Searches,
			fmt.Sprintf("must not have more than %v characters (including spaces) in the search list", maxDNSSearchListChars)))
	}
	for i, s := range cfg.Searches {
		if s == "." {
			continue
		}
		trimmed := strings.TrimSuffix(s, ".")
		for _, msg := range utilvalidation.IsDNS1123SubdomainWithUnderscore(trimmed) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("searches").Index(i), trimmed, msg))
		}
	}
	for i, o := range cfg.Options {
		if o.Name == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("options").Index(i), "Option.Name must not be empty"))
		}
	}
	return allErrs
}

// validatePodTopologySpreadConstraints checks each constraint and that no
// two share a topologyKey and whenUnsatisfiable.
func validatePodTopologySpreadConstraints(constraints []corev1.TopologySpreadConstraint, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	type pair struct {
		key    string
		action corev1.UnsatisfiableConstraintAction
	}
	seen := map[pair]bool{}
	actions := []corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}
	policies := []corev1.NodeInclusionPolicy{corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore}
	for i, c := range constraints {
		p := fldPath.Index(i)
		if c.MaxSkew <= 0 {
			allErrs = append(allErrs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			allErrs = append(allErrs, field.Required(p.Child("topologyKey"), "can not be empty"))
		} else {
			allErrs = append(allErrs, metav1validation.ValidateLabelName(c.TopologyKey, p.Child("topologyKey"))...)
		}
		switch c.WhenUnsatisfiable {
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		case "":
			allErrs = append(allErrs, field.Required(p.Child("whenUnsatisfiable"), "can not be empty"))
		default:
			allErrs = append(allErrs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, actions))
		}
		if c.MinDomains != nil {
			if *c.MinDomains <= 0 {
				allErrs = append(allErrs, field.Invalid(p.Child("minDomains"), *c.MinDomains, "must be greater than 0"))
			}
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				allErrs = append(allErrs, field.Invalid(p.Child("minDomains"), *c.MinDomains,
					fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", corev1.DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		if c.NodeAffinityPolicy != nil && *c.NodeAffinityPolicy != corev1.NodeInclusionPolicyHonor && *c.NodeAffinityPolicy != corev1.NodeInclusionPolicyIgnore {
			allErrs = append(allErrs, field.NotSupported(p.Child("nodeAffinityPolicy"), *c.NodeAffinityPolicy, policies))
		}
		if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy != corev1.NodeInclusionPolicyHonor && *c.NodeTaintsPolicy != corev1.NodeInclusionPolicyIgnore {
			allErrs = append(allErrs, field.NotSupported(p.Child("nodeTaintsPolicy"), *c.NodeTaintsPolicy, policies))
		}
		if c.LabelSelector != nil {
			allErrs = append(allErrs, metav1validation.ValidateLabelSelector(c.LabelSelector,
				metav1validation.LabelSelectorValidationOptions{}, p.Child("labelSelector"))...)
		}
		k := pair{c.TopologyKey, c.WhenUnsatisfiable}
		if c.TopologyKey != "" && c.WhenUnsatisfiable != "" {
			if seen[k] {
				allErrs = append(allErrs, field.Duplicate(p, fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
			}
			seen[k] = true
		}
	}
	return allErrs
}
