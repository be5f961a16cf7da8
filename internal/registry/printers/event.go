package printers

import (
	"cmp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EventTable prints LAST SEEN TYPE REASON OBJECT MESSAGE, with SUBOBJECT,
// SOURCE, FIRST SEEN, COUNT and NAME as wide (priority 1) columns. The
// cells follow the columns' order, wide ones included.
func EventTable() *Table[*corev1.Event] {
	event := corev1.Event{}.SwaggerDoc()
	columns := []metav1.TableColumnDefinition{
		{Name: "Last Seen", Type: "string", Description: event["lastTimestamp"]},
		{Name: "Type", Type: "string", Description: event["type"]},
		{Name: "Reason", Type: "string", Description: event["reason"]},
		{Name: "Object", Type: "string", Description: event["involvedObject"]},
		{Name: "Subobject", Type: "string", Priority: 1, Description: corev1.ObjectReference{}.SwaggerDoc()["fieldPath"]},
		{Name: "Source", Type: "string", Priority: 1, Description: event["source"]},
		{Name: "Message", Type: "string", Description: event["message"]},
		{Name: "First Seen", Type: "string", Priority: 1, Description: event["firstTimestamp"]},
		{Name: "Count", Type: "string", Priority: 1, Description: event["count"]},
		{Name: "Name", Type: "string", Priority: 1, Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
	}
	return New(columns, eventCells)
}

// eventCells reads both event shapes: old ones (firstTimestamp,
// lastTimestamp, count) and events.k8s.io ones (eventTime, series).
func eventCells(e *corev1.Event, now time.Time) []any {
	firstSeen := Age(e.FirstTimestamp, now)
	if e.FirstTimestamp.IsZero() {
		firstSeen = MicroAge(e.EventTime, now)
	}
	lastSeen := Age(e.LastTimestamp, now)
	if e.LastTimestamp.IsZero() {
		lastSeen = firstSeen
	}
	count := e.Count
	if e.Series != nil {
		lastSeen = MicroAge(e.Series.LastObservedTime, now)
		count = e.Series.Count
	} else if count == 0 {
		// A singleton events.k8s.io event has no count.
		count = 1
	}
	return []any{
		lastSeen,
		e.Type,
		e.Reason,
		eventObject(e.InvolvedObject),
		e.InvolvedObject.FieldPath,
		eventSource(e),
		strings.TrimSpace(e.Message),
		firstSeen,
		int64(count),
		e.Name,
	}
}

// eventObject renders the involved object as kind/name in lower case.
func eventObject(ref corev1.ObjectReference) string {
	kind := strings.ToLower(ref.Kind)
	if ref.Name == "" {
		return kind
	}
	return kind + "/" + ref.Name
}

// eventSource renders "component, host", falling back to the reporting
// controller and instance of newer events.
func eventSource(e *corev1.Event) string {
	component := cmp.Or(e.Source.Component, e.ReportingController)
	host := cmp.Or(e.Source.Host, e.ReportingInstance)
	if host == "" {
		return component
	}
	return component + ", " + host
}
