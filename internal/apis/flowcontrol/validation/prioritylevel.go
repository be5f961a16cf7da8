package validation

import (
	"fmt"
	"math"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

const (
	maxQueues = 10 * 1000 * 1000
	// maxHashBits is how much entropy shuffle sharding can draw from one
	// 64-bit hash, as upstream.
	maxHashBits = 60
)

var (
	supportedPriorityLevelEnablement = []string{string(flowcontrolv1.PriorityLevelEnablementExempt), string(flowcontrolv1.PriorityLevelEnablementLimited)}
	supportedLimitResponseType       = []string{string(flowcontrolv1.LimitResponseTypeQueue), string(flowcontrolv1.LimitResponseTypeReject)}
)

// ValidatePriorityLevelConfiguration checks a priority level, its spec and
// its status.
func ValidatePriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&pl.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	allErrs = append(allErrs, validatePriorityLevelSpec(&pl.Spec, pl.Name, field.NewPath("spec"))...)
	return append(allErrs, ValidatePriorityLevelConfigurationStatus(&pl.Status, field.NewPath("status"))...)
}

// ValidatePriorityLevelConfigurationUpdate checks the new priority level as
// on create, and the metadata changes.
func ValidatePriorityLevelConfigurationUpdate(pl, old *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	allErrs := ValidatePriorityLevelConfiguration(pl)
	return append(allErrs, corevalidation.ValidateObjectMetaUpdate(&pl.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
}

// ValidatePriorityLevelConfigurationStatus checks the conditions: each has
// a type, no type twice.
func ValidatePriorityLevelConfigurationStatus(status *flowcontrolv1.PriorityLevelConfigurationStatus, fldPath *field.Path) field.ErrorList {
	types := make([]string, 0, len(status.Conditions))
	for _, c := range status.Conditions {
		types = append(types, string(c.Type))
	}
	return validateConditionTypes(types, fldPath.Child("conditions"))
}

func validatePriorityLevelSpec(spec *flowcontrolv1.PriorityLevelConfigurationSpec, name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if (name == flowcontrolv1.PriorityLevelConfigurationNameExempt) != (spec.Type == flowcontrolv1.PriorityLevelEnablementExempt) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("type"), spec.Type, "type must be 'Exempt' if and only if name is 'exempt'"))
	}
	switch spec.Type {
	case flowcontrolv1.PriorityLevelEnablementExempt:
		if spec.Limited != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("limited"), "must be nil if the type is not Limited"))
		}
		if spec.Exempt != nil {
			allErrs = append(allErrs, validateExempt(spec.Exempt, fldPath.Child("exempt"))...)
		}
	case flowcontrolv1.PriorityLevelEnablementLimited:
		if spec.Exempt != nil {
			allErrs = append(allErrs, field.Forbidden(fldPath.Child("exempt"), "must be nil if the type is Limited"))
		}
		if spec.Limited == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("limited"), "must not be empty when type is Limited"))
		} else {
			allErrs = append(allErrs, validateLimited(spec.Limited, fldPath.Child("limited"))...)
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), spec.Type, supportedPriorityLevelEnablement))
	}
	return allErrs
}

func validateLendablePercent(p *int32, fldPath *field.Path) field.ErrorList {
	if p != nil && (*p < 0 || *p > 100) {
		return field.ErrorList{field.Invalid(fldPath, *p, "must be between 0 and 100, inclusive")}
	}
	return nil
}

func validateExempt(e *flowcontrolv1.ExemptPriorityLevelConfiguration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if e.NominalConcurrencyShares != nil && *e.NominalConcurrencyShares < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("nominalConcurrencyShares"), *e.NominalConcurrencyShares, "must be a non-negative integer"))
	}
	return append(allErrs, validateLendablePercent(e.LendablePercent, fldPath.Child("lendablePercent"))...)
}

// validateLimited checks a limited level. v1 allows zero shares.
func validateLimited(l *flowcontrolv1.LimitedPriorityLevelConfiguration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if l.NominalConcurrencyShares != nil && *l.NominalConcurrencyShares < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("nominalConcurrencyShares"), *l.NominalConcurrencyShares, "must be a non-negative integer"))
	}
	allErrs = append(allErrs, validateLimitResponse(l.LimitResponse, fldPath.Child("limitResponse"))...)
	allErrs = append(allErrs, validateLendablePercent(l.LendablePercent, fldPath.Child("lendablePercent"))...)
	if b := l.BorrowingLimitPercent; b != nil && *b < 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("borrowingLimitPercent"), *b, "if specified, must be a non-negative integer"))
	}
	return allErrs
}

func validateLimitResponse(lr flowcontrolv1.LimitResponse, fldPath *field.Path) field.ErrorList {
	switch lr.Type {
	case flowcontrolv1.LimitResponseTypeReject:
		if lr.Queuing != nil {
			return field.ErrorList{field.Forbidden(fldPath.Child("queuing"), "must be nil if limited.limitResponse.type is not Limited")}
		}
	case flowcontrolv1.LimitResponseTypeQueue:
		if lr.Queuing == nil {
			return field.ErrorList{field.Required(fldPath.Child("queuing"), "must not be empty if limited.limitResponse.type is Limited")}
		}
		return validateQueuing(lr.Queuing, fldPath.Child("queuing"))
	default:
		return field.ErrorList{field.NotSupported(fldPath.Child("type"), lr.Type, supportedLimitResponseType)}
	}
	return nil
}

func validateQueuing(q *flowcontrolv1.QueuingConfiguration, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if q.QueueLengthLimit <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("queueLengthLimit"), q.QueueLengthLimit, "must be positive"))
	}
	if q.Queues <= 0 {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("queues"), q.Queues, "must be positive"))
	} else if q.Queues > maxQueues {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("queues"), q.Queues, fmt.Sprintf("must not be greater than %d", maxQueues)))
	}
	handPath := fldPath.Child("handSize")
	switch {
	case q.HandSize <= 0:
		allErrs = append(allErrs, field.Invalid(handPath, q.HandSize, "must be positive"))
	case q.HandSize > q.Queues:
		allErrs = append(allErrs, field.Invalid(handPath, q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
	case requiredEntropyBits(q.Queues, q.HandSize) > maxHashBits:
		allErrs = append(allErrs, field.Invalid(handPath, q.HandSize,
			fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d", q.Queues, q.HandSize, maxHashBits)))
	}
	return allErrs
}

// requiredEntropyBits is how many random bits dealing a hand of handSize
// from deckSize cards takes.
func requiredEntropyBits(deckSize, handSize int32) int {
	return int(math.Ceil(math.Log2(float64(deckSize)) * float64(handSize)))
}
