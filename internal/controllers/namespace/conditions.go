package namespace

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// The conditions a terminating namespace carries say what its deletion is
// waiting for. Types, reasons and messages are kube-controller-manager's,
// since tools (kubectl describe, operators' cleanup scripts) read them.

// conditionTypes are the conditions the controller owns, in upstream's
// order.
var conditionTypes = []corev1.NamespaceConditionType{
	corev1.NamespaceDeletionDiscoveryFailure,
	corev1.NamespaceDeletionGVParsingFailure,
	corev1.NamespaceDeletionContentFailure,
	corev1.NamespaceContentRemaining,
	corev1.NamespaceFinalizersRemaining,
}

// okConditions are the conditions when nothing is wrong.
var okConditions = map[corev1.NamespaceConditionType]struct{ reason, message string }{
	corev1.NamespaceDeletionDiscoveryFailure: {"ResourcesDiscovered", "All resources successfully discovered"},
	corev1.NamespaceDeletionGVParsingFailure: {"ParsedGroupVersions", "All legacy kube types successfully parsed"},
	corev1.NamespaceDeletionContentFailure:   {"ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	corev1.NamespaceContentRemaining:         {"ContentRemoved", "All content successfully removed"},
	corev1.NamespaceFinalizersRemaining:      {"ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// contentReport is what one pass over a namespace's content found.
type contentReport struct {
	discoveryErr error
	parseErr     error
	deleteErrs   []error
	// remaining counts the objects left per resource.
	remaining map[schema.GroupVersionResource]int
	// finalizers counts the remaining objects per finalizer they carry.
	finalizers map[string]int
}

// conditions turns the report into the failing conditions; the types not
// returned are ok.
func (r *contentReport) conditions() map[corev1.NamespaceConditionType]corev1.NamespaceCondition {
	out := map[corev1.NamespaceConditionType]corev1.NamespaceCondition{}
	failing := func(t corev1.NamespaceConditionType, reason, message string) {
		out[t] = corev1.NamespaceCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: message}
	}
	if r.discoveryErr != nil {
		msg := r.discoveryErr.Error()
		var groups *discovery.ErrGroupDiscoveryFailed
		if errors.As(r.discoveryErr, &groups) {
			msg = fmt.Sprintf("Discovery failed for some groups, %d failing: %v", len(groups.Groups), r.discoveryErr)
		}
		failing(corev1.NamespaceDeletionDiscoveryFailure, "DiscoveryFailed", msg)
	}
	if r.parseErr != nil {
		failing(corev1.NamespaceDeletionGVParsingFailure, "GroupVersionParsingFailed", r.parseErr.Error())
	}
	if len(r.deleteErrs) > 0 {
		msgs := make([]string, 0, len(r.deleteErrs))
		for _, err := range r.deleteErrs {
			msgs = append(msgs, err.Error())
		}
		slices.Sort(msgs)
		failing(corev1.NamespaceDeletionContentFailure, "ContentDeletionFailed",
			fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(msgs), strings.Join(msgs, ", ")))
	}
	var resources []string
	for gvr, n := range r.remaining {
		if n > 0 {
			resources = append(resources, fmt.Sprintf("%s.%s has %d resource instances", gvr.Resource, gvr.Group, n))
		}
	}
	if len(resources) > 0 {
		slices.Sort(resources)
		failing(corev1.NamespaceContentRemaining, "SomeResourcesRemain",
			"Some resources are remaining: "+strings.Join(resources, ", "))
	}
	var finalizers []string
	for f, n := range r.finalizers {
		if n > 0 {
			finalizers = append(finalizers, fmt.Sprintf("%s in %d resource instances", f, n))
		}
	}
	if len(finalizers) > 0 {
		slices.Sort(finalizers)
		failing(corev1.NamespaceFinalizersRemaining, "SomeFinalizersRemain",
			"Some content in the namespace has finalizers remaining: "+strings.Join(finalizers, ", "))
	}
	return out
}

// applyConditions sets every owned condition of status from the report
// and reports whether anything changed. lastTransitionTime moves only
// when a condition's status does.
func applyConditions(status *corev1.NamespaceStatus, failing map[corev1.NamespaceConditionType]corev1.NamespaceCondition, now metav1.Time) bool {
	changed := false
	for _, t := range conditionTypes {
		want, ok := failing[t]
		if !ok {
			okc := okConditions[t]
			want = corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse, Reason: okc.reason, Message: okc.message}
		}
		want.LastTransitionTime = now
		i := slices.IndexFunc(status.Conditions, func(c corev1.NamespaceCondition) bool { return c.Type == t })
		if i < 0 {
			status.Conditions = append(status.Conditions, want)
			changed = true
			continue
		}
		old := &status.Conditions[i]
		if old.Status == want.Status && old.Reason == want.Reason && old.Message == want.Message {
			continue
		}
		if old.Status != want.Status {
			old.LastTransitionTime = now
		}
		old.Status, old.Reason, old.Message = want.Status, want.Reason, want.Message
		changed = true
	}
	return changed
}
