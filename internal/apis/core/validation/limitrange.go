package validation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateLimitRange checks a limit range: known or qualified types, each
// once, resource names fit for the type, and min <= defaultRequest <=
// default <= max with upstream's messages.
func ValidateLimitRange(lr *corev1.LimitRange) field.ErrorList {
	allErrs := ValidateObjectMeta(&lr.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	seen := map[corev1.LimitType]bool{}
	fldPath := field.NewPath("spec", "limits")
	for i := range lr.Spec.Limits {
		idxPath := fldPath.Index(i)
		limit := &lr.Spec.Limits[i]
		allErrs = append(allErrs, validateLimitType(limit.Type, idxPath.Child("type"))...)
		if seen[limit.Type] {
			allErrs = append(allErrs, field.Duplicate(idxPath.Child("type"), limit.Type))
		}
		seen[limit.Type] = true
		allErrs = append(allErrs, validateLimitRangeItem(limit, idxPath)...)
	}
	return allErrs
}

// ValidateLimitRangeUpdate checks an update: metadata changes and the new
// limit range as on create.
func ValidateLimitRangeUpdate(lr, old *corev1.LimitRange) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&lr.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(allErrs, ValidateLimitRange(lr)...)
}

func validateLimitType(t corev1.LimitType, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(t)) {
		allErrs = append(allErrs, field.Invalid(fldPath, t, msg))
	}
	if len(allErrs) != 0 {
		return allErrs
	}
	if !strings.Contains(string(t), "/") {
		switch t {
		case corev1.LimitTypePod, corev1.LimitTypeContainer, corev1.LimitTypePersistentVolumeClaim:
		default:
			allErrs = append(allErrs, field.Invalid(fldPath, t, "must be a standard limit type or fully qualified"))
		}
	}
	return allErrs
}

// limitResourceName: pod and container limits take container resources;
// other types (PersistentVolumeClaim) any resource.
func limitResourceName(t corev1.LimitType, name corev1.ResourceName, fldPath *field.Path) field.ErrorList {
	if t == corev1.LimitTypePod || t == corev1.LimitTypeContainer {
		return checkContainerResourceName(name, fldPath)
	}
	return checkResourceName(name, fldPath)
}

// limitBounds are one item's quantities per resource name.
type limitBounds struct {
	keys                                          sets.Set[string]
	min, max, defaults, defaultRequests, maxRatio map[string]resource.Quantity
}

func (b *limitBounds) add(into map[string]resource.Quantity, t corev1.LimitType, list corev1.ResourceList, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for name, q := range list {
		allErrs = append(allErrs, limitResourceName(t, name, fldPath.Key(string(name)))...)
		b.keys.Insert(string(name))
		into[string(name)] = q
	}
	return allErrs
}

func validateLimitRangeItem(limit *corev1.LimitRangeItem, idxPath *field.Path) field.ErrorList {
	b := &limitBounds{
		keys: sets.New[string](), min: map[string]resource.Quantity{}, max: map[string]resource.Quantity{},
		defaults: map[string]resource.Quantity{}, defaultRequests: map[string]resource.Quantity{}, maxRatio: map[string]resource.Quantity{},
	}
	allErrs := b.add(b.max, limit.Type, limit.Max, idxPath.Child("max"))
	allErrs = append(allErrs, b.add(b.min, limit.Type, limit.Min, idxPath.Child("min"))...)
	if limit.Type == corev1.LimitTypePod {
		if len(limit.Default) > 0 {
			allErrs = append(allErrs, field.Forbidden(idxPath.Child("default"), "may not be specified when `type` is 'Pod'"))
		}
		if len(limit.DefaultRequest) > 0 {
			allErrs = append(allErrs, field.Forbidden(idxPath.Child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
		}
	} else {
		allErrs = append(allErrs, b.add(b.defaults, limit.Type, limit.Default, idxPath.Child("default"))...)
		allErrs = append(allErrs, b.add(b.defaultRequests, limit.Type, limit.DefaultRequest, idxPath.Child("defaultRequest"))...)
	}
	if limit.Type == corev1.LimitTypePersistentVolumeClaim {
		_, hasMin := limit.Min[corev1.ResourceStorage]
		_, hasMax := limit.Max[corev1.ResourceStorage]
		if !hasMin && !hasMax {
			allErrs = append(allErrs, field.Required(idxPath.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
		}
	}
	allErrs = append(allErrs, b.add(b.maxRatio, limit.Type, limit.MaxLimitRequestRatio, idxPath.Child("maxLimitRequestRatio"))...)
	for _, k := range sets.List(b.keys) {
		allErrs = append(allErrs, b.check(k, idxPath)...)
	}
	return allErrs
}

// check compares the bounds of resource k with each other.
func (b *limitBounds) check(k string, idxPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	minQ, hasMin := b.min[k]
	maxQ, hasMax := b.max[k]
	defQ, hasDef := b.defaults[k]
	reqQ, hasReq := b.defaultRequests[k]
	ratio, hasRatio := b.maxRatio[k]
	invalid := func(child string, value resource.Quantity, format string, args ...any) {
		allErrs = append(allErrs, field.Invalid(idxPath.Child(child).Key(k), value, fmt.Sprintf(format, args...)))
	}
	if hasMin && hasMax && minQ.Cmp(maxQ) > 0 {
		invalid("min", minQ, "min value %s is greater than max value %s", minQ.String(), maxQ.String())
	}
	if hasReq && hasMin && minQ.Cmp(reqQ) > 0 {
		invalid("defaultRequest", reqQ, "min value %s is greater than default request value %s", minQ.String(), reqQ.String())
	}
	if hasReq && hasMax && reqQ.Cmp(maxQ) > 0 {
		invalid("defaultRequest", reqQ, "default request value %s is greater than max value %s", reqQ.String(), maxQ.String())
	}
	if hasReq && hasDef && reqQ.Cmp(defQ) > 0 {
		invalid("defaultRequest", reqQ, "default request value %s is greater than default limit value %s", reqQ.String(), defQ.String())
	}
	if hasDef && hasMin && minQ.Cmp(defQ) > 0 {
		invalid("default", minQ, "min value %s is greater than default value %s", minQ.String(), defQ.String())
	}
	if hasDef && hasMax && defQ.Cmp(maxQ) > 0 {
		invalid("default", maxQ, "default value %s is greater than max value %s", defQ.String(), maxQ.String())
	}
	if hasRatio && ratio.Cmp(*resource.NewQuantity(1, resource.DecimalSI)) < 0 {
		invalid("maxLimitRequestRatio", ratio, "ratio %s is less than 1", ratio.String())
	}
	if hasRatio && hasMin && hasMax {
		if limit := ratioLimit(minQ, maxQ, ratio); limit.exceeded {
			invalid("maxLimitRequestRatio", ratio, "ratio %s is greater than max/min = %f", ratio.String(), limit.value)
		}
	}
	if !resourceOvercommitAllowed(corev1.ResourceName(k)) && hasDef && hasReq && defQ.Cmp(reqQ) != 0 {
		invalid("defaultRequest", reqQ, "default value %s must equal to defaultRequest value %s in %s", defQ.String(), reqQ.String(), k)
	}
	return allErrs
}

type ratioCheck struct {
	value    float64
	exceeded bool
}

// ratioLimit compares ratio with max/min, in milli-units when every value
// fits, as upstream does.
func ratioLimit(minQ, maxQ, ratio resource.Quantity) ratioCheck {
	ratioValue := float64(ratio.Value())
	minValue, maxValue := minQ.Value(), maxQ.Value()
	if ratio.Value() < resource.MaxMilliValue && minValue < resource.MaxMilliValue && maxValue < resource.MaxMilliValue {
		ratioValue = float64(ratio.MilliValue()) / 1000
		minValue, maxValue = minQ.MilliValue(), maxQ.MilliValue()
	}
	limit := float64(maxValue) / float64(minValue)
	return ratioCheck{value: limit, exceeded: ratioValue > limit}
}
