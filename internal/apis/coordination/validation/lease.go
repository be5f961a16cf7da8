// Package validation checks coordination.k8s.io/v1 leases the way
// kube-apiserver does: the same rules, field paths and messages.
package validation

import (
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateLease validates a lease on create.
func ValidateLease(lease *coordinationv1.Lease) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&lease.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(allErrs, ValidateLeaseSpec(&lease.Spec, field.NewPath("spec"))...)
}

// ValidateLeaseUpdate validates a lease update: metadata rules and the new
// spec.
func ValidateLeaseUpdate(lease, old *coordinationv1.Lease) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&lease.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateLeaseSpec(&lease.Spec, field.NewPath("spec"))...)
}

// ValidateLeaseSpec validates a lease spec. The times are MicroTimes and
// need no checks.
func ValidateLeaseSpec(spec *coordinationv1.LeaseSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.LeaseDurationSeconds != nil && *spec.LeaseDurationSeconds <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("leaseDurationSeconds"), spec.LeaseDurationSeconds, "must be greater than 0"))
	}
	if spec.LeaseTransitions != nil && *spec.LeaseTransitions < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("leaseTransitions"), spec.LeaseTransitions, "must be greater than or equal to 0"))
	}
	if spec.Strategy != nil {
		allErrs = append(allErrs, ValidateCoordinatedLeaseStrategy(*spec.Strategy, fldPath.Child("strategy"))...)
	}
	if spec.PreferredHolder != nil && *spec.PreferredHolder != "" && (spec.Strategy == nil || *spec.Strategy == "") {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return allErrs
}

// ValidateCoordinatedLeaseStrategy accepts the strategies Kubernetes
// defines, or any qualified name with a domain prefix. Upstream reports the
// error one "strategy" deeper than the field (spec.strategy.strategy);
// kept so clients see the same path.
func ValidateCoordinatedLeaseStrategy(strategy coordinationv1.CoordinatedLeaseStrategy, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	errPath := fldPath.Child("strategy")
	if !strings.Contains(string(strategy), "/") {
		if strategy != coordinationv1.OldestEmulationVersion {
			allErrs = append(allErrs, field.NotSupported(errPath, strategy, []coordinationv1.CoordinatedLeaseStrategy{coordinationv1.OldestEmulationVersion}))
		}
		return allErrs
	}
	for _, msg := range validation.IsQualifiedName(string(strategy)) {
		allErrs = append(allErrs, field.Invalid(errPath, strategy, msg))
	}
	return allErrs
}
