package validation

import (
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Length limits of the newer event fields.
const (
	ReportingInstanceLengthLimit = 128
	ActionLengthLimit            = 128
	ReasonLengthLimit            = 128
	NoteLengthLimit              = 1024
)

// isLegacyEventVersion reports the request versions that only get the
// lenient checks, for compatibility with the many old event writers.
func isLegacyEventVersion(gv schema.GroupVersion) bool {
	return gv == corev1.SchemeGroupVersion || gv == schema.GroupVersion{Group: "events.k8s.io", Version: "v1beta1"}
}

// ValidateEventCreate validates a new event. requestVersion is the group
// version of the request: core/v1 and events.k8s.io/v1beta1 writers get
// only the lenient checks; events.k8s.io/v1 (and a request without a
// version) get the strict ones.
func ValidateEventCreate(e *corev1.Event, requestVersion schema.GroupVersion) field.ErrorList {
	allErrs := legacyValidateEvent(e)
	if isLegacyEventVersion(requestVersion) {
		// Metadata gets only the common checks every object gets
		// (rest.BeforeCreate), with the lenient path-segment name rule.
		return allErrs
	}
	allErrs = append(allErrs, ValidateObjectMeta(&e.ObjectMeta, true, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	allErrs = append(allErrs, validateEventSeries(e)...)
	if e.EventTime.IsZero() {
		allErrs = append(allErrs, field.Required(field.NewPath("eventTime"), ""))
	}
	if e.Type != corev1.EventTypeNormal && e.Type != corev1.EventTypeWarning {
		allErrs = append(allErrs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.Type)))
	}
	if !e.FirstTimestamp.IsZero() {
		allErrs = append(allErrs, field.Invalid(field.NewPath("firstTimestamp"), "", "needs to be unset"))
	}
	if !e.LastTimestamp.IsZero() {
		allErrs = append(allErrs, field.Invalid(field.NewPath("lastTimestamp"), "", "needs to be unset"))
	}
	if e.Count != 0 {
		allErrs = append(allErrs, field.Invalid(field.NewPath("count"), "", "needs to be unset"))
	}
	if e.Source.Component != "" || e.Source.Host != "" {
		allErrs = append(allErrs, field.Invalid(field.NewPath("source"), "", "needs to be unset"))
	}
	return allErrs
}

// ValidateEventUpdate validates an event update; strict versions also keep
// the descriptive fields immutable.
func ValidateEventUpdate(e, old *corev1.Event, requestVersion schema.GroupVersion) field.ErrorList {
	allErrs := legacyValidateEvent(e)
	if isLegacyEventVersion(requestVersion) {
		return allErrs
	}
	allErrs = append(allErrs, ValidateObjectMetaUpdate(&e.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	if !reflect.DeepEqual(e.Series, old.Series) {
		allErrs = append(allErrs, validateEventSeries(e)...)
	}
	immutable := []struct {
		name     string
		new, old any
	}{
		{"involvedObject", e.InvolvedObject, old.InvolvedObject},
		{"reason", e.Reason, old.Reason},
		{"message", e.Message, old.Message},
		{"source", e.Source, old.Source},
		{"firstTimestamp", e.FirstTimestamp, old.FirstTimestamp},
		{"lastTimestamp", e.LastTimestamp, old.LastTimestamp},
		{"count", e.Count, old.Count},
		{"type", e.Type, old.Type},
		{"eventTime", e.EventTime, old.EventTime},
		{"action", e.Action, old.Action},
		{"related", e.Related, old.Related},
		{"reportingController", e.ReportingController, old.ReportingController},
		{"reportingInstance", e.ReportingInstance, old.ReportingInstance},
	}
	for _, f := range immutable {
		allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(f.new, f.old, field.NewPath(f.name))...)
	}
	return allErrs
}

// validateEventSeries checks the series of an events.k8s.io/v1 event. The
// dotted paths are upstream's.
func validateEventSeries(e *corev1.Event) field.ErrorList {
	var allErrs field.ErrorList
	if e.Series != nil {
		if e.Series.Count < 2 {
			allErrs = append(allErrs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
		}
		if e.Series.LastObservedTime.IsZero() {
			allErrs = append(allErrs, field.Required(field.NewPath("series.lastObservedTime"), ""))
		}
	}
	return allErrs
}

// legacyValidateEvent holds the checks every event passes whatever API
// version wrote it. Events without eventTime come from old writers and
// only need a consistent namespace; newer ones need their reporting
// fields.
func legacyValidateEvent(e *corev1.Event) field.ErrorList {
	var allErrs field.ErrorList
	nsPath := field.NewPath("involvedObject", "namespace")
	const nsMismatch = "does not match event.namespace"
	if e.EventTime.IsZero() {
		if e.InvolvedObject.Namespace == "" {
			// Events about cluster-scoped objects live in "default" (or
			// nowhere, for very old clients).
			if e.Namespace != metav1.NamespaceNone && e.Namespace != metav1.NamespaceDefault {
				allErrs = append(allErrs, field.Invalid(nsPath, e.InvolvedObject.Namespace, nsMismatch))
			}
		} else if e.Namespace != e.InvolvedObject.Namespace {
			allErrs = append(allErrs, field.Invalid(nsPath, e.InvolvedObject.Namespace, nsMismatch))
		}
	} else {
		if e.InvolvedObject.Namespace == "" && e.Namespace != metav1.NamespaceDefault && e.Namespace != metav1.NamespaceSystem {
			allErrs = append(allErrs, field.Invalid(nsPath, e.InvolvedObject.Namespace, nsMismatch))
		}
		allErrs = append(allErrs, validateReportingFields(e)...)
	}
	for _, msg := range validation.IsDNS1123Subdomain(e.Namespace) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("namespace"), e.Namespace, msg))
	}
	return allErrs
}

// validateReportingFields checks the fields events with an eventTime must
// carry.
func validateReportingFields(e *corev1.Event) field.ErrorList {
	var allErrs field.ErrorList
	if e.ReportingController == "" {
		allErrs = append(allErrs, field.Required(field.NewPath("reportingController"), ""))
	}
	for _, msg := range validation.IsQualifiedName(e.ReportingController) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("reportingController"), e.ReportingController, msg))
	}
	limited := []struct {
		name     string
		value    string
		limit    int
		required bool
	}{
		{"reportingInstance", e.ReportingInstance, ReportingInstanceLengthLimit, true},
		{"action", e.Action, ActionLengthLimit, true},
		{"reason", e.Reason, ReasonLengthLimit, true},
		{"message", e.Message, NoteLengthLimit, false},
	}
	for _, f := range limited {
		if f.required && f.value == "" {
			allErrs = append(allErrs, field.Required(field.NewPath(f.name), ""))
		}
		if len(f.value) > f.limit {
			allErrs = append(allErrs, field.Invalid(field.NewPath(f.name), "", fmt.Sprintf("can have at most %v characters", f.limit)))
		}
	}
	return allErrs
}
