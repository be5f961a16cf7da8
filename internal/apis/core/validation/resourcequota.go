package validation

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Upstream's messages for resource names and quantities.
const (
	notQuotaResourceMsg = "must be a standard resource for quota"
	notIntegerMsg       = "must be an integer"
	notPositiveMsg      = "must be greater than zero"
)

// The resource names Kubernetes defines without a domain, per use.
var (
	standardResourceNames = sets.New[corev1.ResourceName](
		corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
		corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsEphemeralStorage,
		corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage,
		corev1.ResourcePods, corev1.ResourceServices, corev1.ResourceReplicationControllers,
		corev1.ResourceQuotas, corev1.ResourceSecrets, corev1.ResourceConfigMaps,
		corev1.ResourcePersistentVolumeClaims, corev1.ResourceStorage, corev1.ResourceRequestsStorage,
		corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
	)
	standardQuotaResourceNames = sets.New[corev1.ResourceName](
		corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
		corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsStorage,
		corev1.ResourceRequestsEphemeralStorage,
		corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage,
		corev1.ResourcePods, corev1.ResourceQuotas, corev1.ResourceServices,
		corev1.ResourceReplicationControllers, corev1.ResourceSecrets,
		corev1.ResourcePersistentVolumeClaims, corev1.ResourceConfigMaps,
		corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
	)
	integerResourceNames = sets.New[corev1.ResourceName](
		corev1.ResourcePods, corev1.ResourceQuotas, corev1.ResourceServices,
		corev1.ResourceReplicationControllers, corev1.ResourceSecrets, corev1.ResourceConfigMaps,
		corev1.ResourcePersistentVolumeClaims, corev1.ResourceServicesNodePorts,
		corev1.ResourceServicesLoadBalancers,
	)
	standardQuotaScopes = sets.New(
		corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
		corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort,
		corev1.ResourceQuotaScopePriorityClass, corev1.ResourceQuotaScopeCrossNamespacePodAffinity,
		corev1.ResourceQuotaScopeVolumeAttributesClass,
	)
	podQuotaResourceNames = sets.New[corev1.ResourceName](
		corev1.ResourcePods, corev1.ResourceCPU, corev1.ResourceMemory,
		corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory,
		corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory,
	)
	claimQuotaResourceNames = sets.New[corev1.ResourceName](
		corev1.ResourcePersistentVolumeClaims, corev1.ResourceRequestsStorage,
	)
)

// resourceNameIsNative: unprefixed names and kubernetes.io/ ones belong
// to Kubernetes.
func resourceNameIsNative(name corev1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || strings.Contains(string(name), corev1.ResourceDefaultNamespacePrefix)
}

func resourceNameIsHugePages(name corev1.ResourceName) bool {
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// resourceNameIsExtended: a domain-prefixed name outside kubernetes.io
// that stays a qualified name with "requests." in front.
func resourceNameIsExtended(name corev1.ResourceName) bool {
	if resourceNameIsNative(name) || strings.HasPrefix(string(name), corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+string(name))) == 0
}

// resourceOvercommitAllowed: requests may be below limits for native
// resources other than huge pages.
func resourceOvercommitAllowed(name corev1.ResourceName) bool {
	return resourceNameIsNative(name) && !resourceNameIsHugePages(name)
}

func resourceNameIsInteger(name corev1.ResourceName) bool {
	return integerResourceNames.Has(name) || resourceNameIsExtended(name)
}

func resourceNameIsQuotaHugePages(name corev1.ResourceName) bool {
	return resourceNameIsHugePages(name) || strings.HasPrefix(string(name), corev1.ResourceRequestsHugePagesPrefix)
}

// checkResourceName accepts a qualified name that is either standard or
// has a domain.
func checkResourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(name)) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	if len(allErrs) != 0 {
		return allErrs
	}
	if !strings.Contains(string(name), "/") && !standardResourceNames.Has(name) && !resourceNameIsQuotaHugePages(name) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, "must be a standard resource type or fully qualified"))
	}
	return allErrs
}

// checkContainerResourceName is checkResourceName for the resources a
// container can request: cpu, memory, ephemeral-storage, huge pages and
// extended resources.
func checkContainerResourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	allErrs := checkResourceName(name, fldPath)
	if !strings.Contains(string(name), "/") {
		switch name {
		case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		default:
			if !resourceNameIsHugePages(name) {
				allErrs = append(allErrs, field.Invalid(fldPath, name, "must be a standard resource for containers"))
			}
		}
	} else if !resourceNameIsNative(name) && !resourceNameIsExtended(name) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, "doesn't follow extended resource name standard"))
	}
	return allErrs
}

// checkQuotaResourceName is checkResourceName for what a quota can
// count.
func checkQuotaResourceName(name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	allErrs := checkResourceName(name, fldPath)
	if !strings.Contains(string(name), "/") && !standardQuotaResourceNames.Has(name) && !resourceNameIsQuotaHugePages(name) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, notQuotaResourceMsg))
	}
	return allErrs
}

// checkResourceQuantity: never negative, whole for countable resources.
func checkResourceQuantity(name corev1.ResourceName, q resource.Quantity, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if q.Cmp(resource.Quantity{}) < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, q.String(), apimachineryvalidation.IsNegativeErrorMsg))
	}
	if resourceNameIsInteger(name) && q.MilliValue()%1000 != 0 {
		allErrs = append(allErrs, field.Invalid(fldPath, q, notIntegerMsg))
	}
	return allErrs
}

// checkQuotaResourceList checks names and quantities of spec.hard,
// status.hard or status.used.
func checkQuotaResourceList(list corev1.ResourceList, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for name, q := range list {
		p := fldPath.Key(string(name))
		allErrs = append(allErrs, checkQuotaResourceName(name, p)...)
		allErrs = append(allErrs, checkResourceQuantity(name, q, p)...)
	}
	return allErrs
}

// ValidateResourceQuota checks a new resource quota.
func ValidateResourceQuota(q *corev1.ResourceQuota) field.ErrorList {
	allErrs := ValidateObjectMeta(&q.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	allErrs = append(allErrs, validateResourceQuotaSpec(&q.Spec, field.NewPath("spec"))...)
	allErrs = append(allErrs, checkQuotaResourceList(q.Status.Hard, field.NewPath("status", "hard"))...)
	return append(allErrs, checkQuotaResourceList(q.Status.Used, field.NewPath("status", "used"))...)
}

// ValidateResourceQuotaUpdate checks an update: the spec as on create and
// scopes that do not change.
func ValidateResourceQuotaUpdate(q, old *corev1.ResourceQuota) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&q.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateResourceQuotaSpec(&q.Spec, field.NewPath("spec"))...)
	if !sets.New(q.Spec.Scopes...).Equal(sets.New(old.Spec.Scopes...)) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("spec", "scopes"), q.Spec.Scopes, apimachineryvalidation.FieldImmutableErrorMsg))
	}
	return allErrs
}

// ValidateResourceQuotaStatusUpdate checks a write of resourcequotas/status.
func ValidateResourceQuotaStatusUpdate(q, old *corev1.ResourceQuota) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&q.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if q.ResourceVersion == "" {
		allErrs = append(allErrs, field.Required(field.NewPath("resourceVersion"), ""))
	}
	allErrs = append(allErrs, checkQuotaResourceList(q.Status.Hard, field.NewPath("status", "hard"))...)
	return append(allErrs, checkQuotaResourceList(q.Status.Used, field.NewPath("status", "used"))...)
}

func validateResourceQuotaSpec(spec *corev1.ResourceQuotaSpec, fldPath *field.Path) field.ErrorList {
	allErrs := checkQuotaResourceList(spec.Hard, fldPath.Child("hard"))
	allErrs = append(allErrs, validateQuotaScopes(spec, fldPath)...)
	if spec.ScopeSelector != nil {
		allErrs = append(allErrs, validateQuotaScopeSelector(spec, fldPath.Child("scopeSelector", "matchExpressions"))...)
	}
	return allErrs
}

// quotaScopeFitsResource says whether a scope can restrict a resource of
// spec.hard: pod scopes apply only to pod counts and compute resources.
func quotaScopeFitsResource(scope corev1.ResourceQuotaScope, name corev1.ResourceName) bool {
	switch scope {
	case corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
		corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopePriorityClass,
		corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
		return podQuotaResourceNames.Has(name)
	case corev1.ResourceQuotaScopeBestEffort:
		return name == corev1.ResourcePods
	case corev1.ResourceQuotaScopeVolumeAttributesClass:
		return claimQuotaResourceNames.Has(name)
	}
	return true
}

// conflictingQuotaScopes reports whether scopes hold both of a pair that
// can never match the same pod.
func conflictingQuotaScopes(scopes sets.Set[corev1.ResourceQuotaScope]) bool {
	return scopes.HasAll(corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort) ||
		scopes.HasAll(corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating)
}

func validateQuotaScopes(spec *corev1.ResourceQuotaSpec, fldPath *field.Path) field.ErrorList {
	if len(spec.Scopes) == 0 {
		return nil
	}
	var allErrs field.ErrorList
	scopesPath := fldPath.Child("scopes")
	hard := sets.List(sets.KeySet(spec.Hard))
	for _, scope := range spec.Scopes {
		if !standardQuotaScopes.Has(scope) {
			allErrs = append(allErrs, field.Invalid(scopesPath, spec.Scopes, "unsupported scope"))
		}
		for _, name := range hard {
			if standardQuotaResourceNames.Has(name) && !quotaScopeFitsResource(scope, name) {
				allErrs = append(allErrs, field.Invalid(scopesPath, spec.Scopes, "unsupported scope applied to resource"))
			}
		}
	}
	if conflictingQuotaScopes(sets.New(spec.Scopes...)) {
		allErrs = append(allErrs, field.Invalid(scopesPath, spec.Scopes, "conflicting scopes"))
	}
	return allErrs
}

func validateQuotaScopeSelector(spec *corev1.ResourceQuotaSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	hard := sets.List(sets.KeySet(spec.Hard))
	scopes := sets.New[corev1.ResourceQuotaScope]()
	for _, req := range spec.ScopeSelector.MatchExpressions {
		if !standardQuotaScopes.Has(req.ScopeName) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("scopeName"), req.ScopeName, "unsupported scope"))
		}
		for _, name := range hard {
			if standardQuotaResourceNames.Has(name) && !quotaScopeFitsResource(req.ScopeName, name) {
				allErrs = append(allErrs, field.Invalid(fldPath, spec.ScopeSelector, "unsupported scope applied to resource"))
			}
		}
		switch req.ScopeName {
		case corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort,
			corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
			corev1.ResourceQuotaScopeCrossNamespacePodAffinity:
			if req.Operator != corev1.ScopeSelectorOpExists {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("operator"), req.Operator,
					"must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"))
			}
		}
		allErrs = append(allErrs, validateScopeSelectorOperator(req, fldPath)...)
		scopes.Insert(req.ScopeName)
	}
	if conflictingQuotaScopes(scopes) {
		allErrs = append(allErrs, field.Invalid(fldPath, spec.Scopes, "conflicting scopes"))
	}
	return allErrs
}

func validateScopeSelectorOperator(req corev1.ScopedResourceSelectorRequirement, fldPath *field.Path) field.ErrorList {
	switch req.Operator {
	case corev1.ScopeSelectorOpIn, corev1.ScopeSelectorOpNotIn:
		if len(req.Values) == 0 {
			return field.ErrorList{field.Required(fldPath.Child("values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector")}
		}
	case corev1.ScopeSelectorOpExists, corev1.ScopeSelectorOpDoesNotExist:
		if len(req.Values) != 0 {
			return field.ErrorList{field.Invalid(fldPath.Child("values"), req.Values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector")}
		}
	default:
		return field.ErrorList{field.Invalid(fldPath.Child("operator"), req.Operator, "not a valid selector operator")}
	}
	return nil
}

// checkPositiveQuantity: strictly above zero.
func checkPositiveQuantity(q resource.Quantity, fldPath *field.Path) field.ErrorList {
	if q.Cmp(resource.Quantity{}) <= 0 {
		return field.ErrorList{field.Invalid(fldPath, q.String(), notPositiveMsg)}
	}
	return nil
}

// checkBasicQuantity is upstream's check of capacities in status.
func checkBasicQuantity(q resource.Quantity, fldPath *field.Path) field.ErrorList {
	if q.Value() < 0 {
		return field.ErrorList{field.Invalid(fldPath, q.Value(), "must be a valid resource quantity")}
	}
	return nil
}
