package validation

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

var eventsV1 = schema.GroupVersion{Group: "events.k8s.io", Version: "v1"}

func TestValidateEventCreateLegacy(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "e", Namespace: "ns"}
	eventTime := metav1.NewMicroTime(time.Now())
	tests := []struct {
		name  string
		event corev1.Event
		want  []string
	}{
		{"matching namespace", corev1.Event{ObjectMeta: meta, InvolvedObject: corev1.ObjectReference{Namespace: "ns"}}, nil},
		{"namespace mismatch", corev1.Event{ObjectMeta: meta, InvolvedObject: corev1.ObjectReference{Namespace: "other"}},
			[]string{"involvedObject.namespace: Invalid value: does not match event.namespace"}},
		{"cluster object in default", corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "default"}}, nil},
		{"cluster object elsewhere", corev1.Event{ObjectMeta: meta},
			[]string{"involvedObject.namespace: Invalid value: does not match event.namespace"}},
		{"name is not checked here", corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "Pod:x", Namespace: "ns"}, InvolvedObject: corev1.ObjectReference{Namespace: "ns"}}, nil},
		{"bad namespace", corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "A"}, InvolvedObject: corev1.ObjectReference{Namespace: "A"}},
			[]string{"namespace: Invalid value: " + validation.IsDNS1123Subdomain("A")[0]}},
		{"new-style missing reporting fields", corev1.Event{ObjectMeta: meta, EventTime: eventTime, InvolvedObject: corev1.ObjectReference{Namespace: "ns"}},
			[]string{
				"reportingController: Required value: ",
				"reportingController: Invalid value: name part must be non-empty",
				"reportingController: Invalid value: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
				"reportingInstance: Required value: ",
				"action: Required value: ",
				"reason: Required value: ",
			}},
		{"new-style too long", corev1.Event{ObjectMeta: meta, EventTime: eventTime, InvolvedObject: corev1.ObjectReference{Namespace: "ns"},
			ReportingController: "example.com/ctl", ReportingInstance: "i", Action: "a", Reason: "r", Message: strings.Repeat("m", NoteLengthLimit+1)},
			[]string{"message: Invalid value: can have at most 1024 characters"}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidateEventCreate(&tt.event, corev1.SchemeGroupVersion), tt.want)
	}
}

func TestValidateEventCreateStrict(t *testing.T) {
	valid := corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "e", Namespace: "ns"},
		InvolvedObject:      corev1.ObjectReference{Namespace: "ns"},
		EventTime:           metav1.NewMicroTime(time.Now()),
		Type:                corev1.EventTypeNormal,
		ReportingController: "example.com/ctl", ReportingInstance: "i", Action: "a", Reason: "r",
	}
	checkErrors(t, "valid", ValidateEventCreate(&valid, eventsV1), nil)

	bad := *valid.DeepCopy()
	bad.Type = "Info"
	bad.Count = 3
	bad.Source.Component = "kubelet"
	bad.Series = &corev1.EventSeries{Count: 1}
	checkErrors(t, "bad", ValidateEventCreate(&bad, eventsV1), []string{
		"type: Invalid value: has invalid value: Info",
		"count: Invalid value: needs to be unset",
		"source: Invalid value: needs to be unset",
		"series.count: Invalid value: should be at least 2",
		"series.lastObservedTime: Required value: ",
	})
	// Without a request version the strict rules apply, as upstream.
	checkErrors(t, "no version", ValidateEventCreate(&bad, schema.GroupVersion{}), describe(ValidateEventCreate(&bad, eventsV1)))
}

func TestValidateEventUpdate(t *testing.T) {
	old := corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "e", Namespace: "ns", ResourceVersion: "1"},
		InvolvedObject:      corev1.ObjectReference{Namespace: "ns"},
		EventTime:           metav1.NewMicroTime(time.Now()),
		Type:                corev1.EventTypeNormal,
		ReportingController: "example.com/ctl", ReportingInstance: "i", Action: "a", Reason: "r",
	}
	changed := *old.DeepCopy()
	changed.Reason = "other"
	changed.Message = "new"
	checkErrors(t, "legacy", ValidateEventUpdate(&changed, &old, corev1.SchemeGroupVersion), nil)
	checkErrors(t, "strict", ValidateEventUpdate(&changed, &old, eventsV1), []string{
		"reason: Invalid value: field is immutable",
		"message: Invalid value: field is immutable",
	})
}
