package validation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// podStandardResources are the unprefixed resource names Kubernetes
// knows (compute and quota); anything else must be fully qualified.
var podStandardResources = sets.New(
	"cpu", "memory", "ephemeral-storage",
	"requests.cpu", "requests.memory", "requests.ephemeral-storage", "requests.storage",
	"limits.cpu", "limits.memory", "limits.ephemeral-storage",
	"pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
	"persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
)

// podIntegerResources are counted in whole units.
var podIntegerResources = sets.New(
	"pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps",
	"persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
)

// validatePodResources checks a container's resources at fldPath
// (…containers[i].resources): known names, non-negative quantities,
// requests no larger than limits, and equal to them for resources that
// cannot be overcommitted (hugepages, extended resources).
func validatePodResources(req *corev1.ResourceRequirements, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	limPath, reqPath := fldPath.Child("limits"), fldPath.Child("requests")
	cpuOrMemory, hugePages := false, false
	note := func(name corev1.ResourceName) {
		switch {
		case name == corev1.ResourceCPU || name == corev1.ResourceMemory:
			cpuOrMemory = true
		case podIsHugePages(name):
			hugePages = true
		}
	}
	for name, q := range req.Limits {
		path := limPath.Key(string(name))
		allErrs = append(allErrs, validatePodContainerResourceName(name, path)...)
		allErrs = append(allErrs, validatePodResourceQuantity(name, q, path)...)
		note(name)
	}
	for name, q := range req.Requests {
		path := reqPath.Key(string(name))
		allErrs = append(allErrs, validatePodContainerResourceName(name, path)...)
		allErrs = append(allErrs, validatePodResourceQuantity(name, q, path)...)
		note(name)
		limit, ok := req.Limits[name]
		switch {
		case ok && q.Cmp(limit) != 0 && !podOvercommitAllowed(name):
			allErrs = append(allErrs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be equal to %s limit of %s", name, limit.String())))
		case ok && q.Cmp(limit) > 0:
			allErrs = append(allErrs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		case !ok && !podOvercommitAllowed(name):
			allErrs = append(allErrs, field.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
	}
	if hugePages && !cpuOrMemory {
		allErrs = append(allErrs, field.Forbidden(fldPath, "HugePages require cpu or memory"))
	}
	return allErrs
}

// validatePodResourceList checks a list of quantities (pod overhead).
func validatePodResourceList(list corev1.ResourceList, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for name, q := range list {
		path := fldPath.Key(string(name))
		allErrs = append(allErrs, validatePodContainerResourceName(name, path)...)
		allErrs = append(allErrs, validatePodResourceQuantity(name, q, path)...)
	}
	return allErrs
}

// validatePodContainerResourceName: unprefixed names must be cpu, memory,
// ephemeral-storage or hugepages-<size>; prefixed ones outside
// kubernetes.io must be valid extended resource names.
func validatePodContainerResourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	value := string(name)
	for _, msg := range utilvalidation.IsQualifiedName(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	unprefixed := !strings.Contains(value, "/")
	if len(allErrs) == 0 && unprefixed && !podStandardResources.Has(value) && !podIsHugePages(name) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, "must be a standard resource type or fully qualified"))
	}
	switch {
	case unprefixed:
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory && name != corev1.ResourceEphemeralStorage && !podIsHugePages(name) {
			allErrs = append(allErrs, field.Invalid(fldPath, name, "must be a standard resource for containers"))
		}
	case !podIsNative(name) && !podIsExtended(name):
		allErrs = append(allErrs, field.Invalid(fldPath, name, "doesn't follow extended resource name standard"))
	}
	return allErrs
}

func validatePodResourceQuantity(name corev1.ResourceName, q resource.Quantity, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if q.Sign() < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, q.String(), "must be greater than or equal to 0"))
	}
	if (podIntegerResources.Has(string(name)) || podIsExtended(name)) && q.MilliValue()%1000 != 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, q, "must be an integer"))
	}
	return allErrs
}

func podIsHugePages(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// podIsNative: unprefixed, or in the kubernetes.io domain.
func podIsNative(name corev1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), corev1.ResourceDefaultNamespacePrefix)
}

// podIsExtended: a fully qualified name outside kubernetes.io that can
// also be quoted in a quota (requests.<name>).
func podIsExtended(name corev1.ResourceName) bool {
	if podIsNative(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(utilvalidation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+string(name))) == 0
}

// podOvercommitAllowed: requests may be below limits for native resources
// other than hugepages.
func podOvercommitAllowed(name corev1.ResourceName) bool {
	return podIsNative(name) && !podIsHugePages(name)
}
