package validation

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Dynamic resource allocation in a pod: spec.resourceClaims, the
// containers' resources.claims that point at them, and the generated
// claim names the resourceclaim controller records in
// status.resourceClaimStatuses. Paths and messages are upstream's.

// resourceClaimNameErrs: ResourceClaim and ResourceClaimTemplate names are
// DNS subdomains, as for any object.
var resourceClaimNameErrs = apimachineryvalidation.NameIsDNSSubdomain

// validatePodResourceClaims checks spec.resourceClaims: every entry has a
// unique DNS-label name and references exactly one claim or template.
func validatePodResourceClaims(claims []corev1.PodResourceClaim, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i := range claims {
		claim := &claims[i]
		path := fldPath.Index(i)
		namePath := path.Child("name")
		switch {
		case claim.Name == "":
			allErrs = append(allErrs, field.Required(namePath, ""))
		case seen.Has(claim.Name):
			allErrs = append(allErrs, field.Duplicate(namePath, claim.Name))
		default:
			for _, msg := range utilvalidation.IsDNS1123Label(claim.Name) {
				allErrs = append(allErrs, field.Invalid(namePath, claim.Name, msg))
			}
			seen.Insert(claim.Name)
		}
		allErrs = append(allErrs, validatePodResourceClaimSource(claim, path)...)
	}
	return allErrs
}

// validatePodResourceClaimSource: one of resourceClaimName and
// resourceClaimTemplateName, each a valid object name.
func validatePodResourceClaimSource(claim *corev1.PodResourceClaim, path *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case claim.ResourceClaimName != nil && claim.ResourceClaimTemplateName != nil:
		allErrs = append(allErrs, field.Invalid(path, *claim, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"))
	case claim.ResourceClaimName == nil && claim.ResourceClaimTemplateName == nil:
		allErrs = append(allErrs, field.Invalid(path, *claim, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
	}
	if n := claim.ResourceClaimName; n != nil {
		for _, msg := range resourceClaimNameErrs(*n, false) {
			allErrs = append(allErrs, field.Invalid(path.Child("resourceClaimName"), *n, msg))
		}
	}
	if n := claim.ResourceClaimTemplateName; n != nil {
		for _, msg := range resourceClaimNameErrs(*n, false) {
			allErrs = append(allErrs, field.Invalid(path.Child("resourceClaimTemplateName"), *n, msg))
		}
	}
	return allErrs
}

// podClaimNames is the set of non-empty spec.resourceClaims names that
// containers may reference; bad names are reported once, above.
func podClaimNames(claims []corev1.PodResourceClaim) sets.Set[string] {
	names := sets.New[string]()
	for _, c := range claims {
		if c.Name != "" {
			names.Insert(c.Name)
		}
	}
	return names
}

// validatePodContainerClaimRefs checks resources.claims of every regular,
// init and ephemeral container against the pod's claims.
func validatePodContainerClaimRefs(spec *corev1.PodSpec, fldPath *field.Path) field.ErrorList {
	names := podClaimNames(spec.ResourceClaims)
	var allErrs field.ErrorList
	for i := range spec.Containers {
		path := fldPath.Child("containers").Index(i).Child("resources", "claims")
		allErrs = append(allErrs, validateContainerClaimRefs(spec.Containers[i].Resources.Claims, names, path)...)
	}
	for i := range spec.InitContainers {
		path := fldPath.Child("initContainers").Index(i).Child("resources", "claims")
		allErrs = append(allErrs, validateContainerClaimRefs(spec.InitContainers[i].Resources.Claims, names, path)...)
	}
	for i := range spec.EphemeralContainers {
		path := fldPath.Child("ephemeralContainers").Index(i).Child("resources", "claims")
		allErrs = append(allErrs, validateContainerClaimRefs(spec.EphemeralContainers[i].Resources.Claims, names, path)...)
	}
	return allErrs
}

// validateContainerClaimRefs: each entry names a pod claim, optionally one
// request in it (a DNS label); a claim, or one request of it, is
// referenced at most once, and a whole claim overlaps any of its requests.
func validateContainerClaimRefs(refs []corev1.ResourceClaim, podClaims sets.Set[string], fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	seen := sets.New[string]()
	for i, ref := range refs {
		path := fldPath.Index(i)
		if ref.Name == "" {
			allErrs = append(allErrs, field.Required(path, ""))
			continue
		}
		if seen.Has(ref.Name) {
			allErrs = append(allErrs, field.Duplicate(path, ref.Name))
		} else {
			key := ref.Name
			if ref.Request != "" {
				for _, msg := range utilvalidation.IsDNS1123Label(ref.Request) {
					allErrs = append(allErrs, field.Invalid(path.Child("request"), ref.Request, msg))
				}
				key += "/" + ref.Request
			}
			switch {
			case seen.Has(key):
				allErrs = append(allErrs, field.Duplicate(path, key))
			case ref.Request == "":
				for prev := range seen {
					if claim, _, ok := strings.Cut(prev, "/"); ok && claim == ref.Name {
						allErrs = append(allErrs, field.Duplicate(path, ref.Name))
					}
				}
			}
			seen.Insert(key)
		}
		if !podClaims.Has(ref.Name) {
			err := field.NotFound(path, ref.Name)
			err.Detail = "must be one of the names in pod.spec.resourceClaims"
			if podClaims.Len() == 0 {
				err.Detail += " which is empty"
			} else {
				err.Detail += ": " + strings.Join(sets.List(podClaims), ", ")
			}
			allErrs = append(allErrs, err)
		}
	}
	return allErrs
}

// validatePodResourceClaimStatuses checks status.resourceClaimStatuses:
// names unique and matching spec claims, generated names valid object
// names. Upstream reports a bad resourceClaimName at the entry's name.
func validatePodResourceClaimStatuses(statuses []corev1.PodResourceClaimStatus, claims []corev1.PodResourceClaim, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	inSpec := podClaimNames(claims)
	seen := sets.New[string]()
	for i, st := range statuses {
		namePath := fldPath.Index(i).Child("name")
		if !inSpec.Has(st.Name) {
			allErrs = append(allErrs, field.Invalid(namePath, st.Name, "must match the name of an entry in `spec.resourceClaims`"))
		}
		if seen.Has(st.Name) {
			allErrs = append(allErrs, field.Duplicate(namePath, st.Name))
		} else {
			seen.Insert(st.Name)
		}
		if n := st.ResourceClaimName; n != nil {
			for _, msg := range resourceClaimNameErrs(*n, false) {
				allErrs = append(allErrs, field.Invalid(namePath, *n, msg))
			}
		}
	}
	return allErrs
}
