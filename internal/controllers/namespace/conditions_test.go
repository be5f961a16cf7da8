package namespace

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

func TestReportConditions(t *testing.T) {
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	tests := []struct {
		name   string
		report contentReport
		want   map[corev1.NamespaceConditionType]corev1.NamespaceCondition
	}{
		{name: "all fine", want: map[corev1.NamespaceConditionType]corev1.NamespaceCondition{}},
		{
			name: "content and finalizers remain",
			report: contentReport{
				remaining:  map[schema.GroupVersionResource]int{widgets: 2, pods: 1},
				finalizers: map[string]int{"example.com/b": 1, "example.com/a": 2},
			},
			want: map[corev1.NamespaceConditionType]corev1.NamespaceCondition{
				corev1.NamespaceContentRemaining: {Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue, Reason: "SomeResourcesRemain",
					Message: "Some resources are remaining: pods. has 1 resource instances, widgets.example.com has 2 resource instances"},
				corev1.NamespaceFinalizersRemaining: {Type: corev1.NamespaceFinalizersRemaining, Status: corev1.ConditionTrue, Reason: "SomeFinalizersRemain",
					Message: "Some content in the namespace has finalizers remaining: example.com/a in 2 resource instances, example.com/b in 1 resource instances"},
			},
		},
		{
			name: "failures",
			report: contentReport{
				discoveryErr: &discovery.ErrGroupDiscoveryFailed{Groups: map[schema.GroupVersion]error{{Group: "x", Version: "v1"}: errors.New("boom")}},
				parseErr:     errors.New("bad group version"),
				deleteErrs:   []error{errors.New("b failed"), errors.New("a failed")},
			},
			want: map[corev1.NamespaceConditionType]corev1.NamespaceCondition{
				corev1.NamespaceDeletionDiscoveryFailure: {Type: corev1.NamespaceDeletionDiscoveryFailure, Status: corev1.ConditionTrue, Reason: "DiscoveryFailed",
					Message: "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: x/v1: boom"},
				corev1.NamespaceDeletionGVParsingFailure: {Type: corev1.NamespaceDeletionGVParsingFailure, Status: corev1.ConditionTrue, Reason: "GroupVersionParsingFailed", Message: "bad group version"},
				corev1.NamespaceDeletionContentFailure: {Type: corev1.NamespaceDeletionContentFailure, Status: corev1.ConditionTrue, Reason: "ContentDeletionFailed",
					Message: "Failed to delete all resource types, 2 remaining: a failed, b failed"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.report.conditions()); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApplyConditions: every owned condition is present, ok ones with
// upstream's reasons; lastTransitionTime moves only with the status.
func TestApplyConditions(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	remaining := (&contentReport{remaining: map[schema.GroupVersionResource]int{{Resource: "pods"}: 1}}).conditions()

	var status corev1.NamespaceStatus
	if !applyConditions(&status, remaining, t0) {
		t.Fatal("first apply: changed = false")
	}
	if len(status.Conditions) != len(conditionTypes) {
		t.Fatalf("%d conditions, want %d", len(status.Conditions), len(conditionTypes))
	}
	if c := status.Conditions[4]; c.Type != corev1.NamespaceFinalizersRemaining || c.Reason != "ContentHasNoFinalizers" || c.Message != "All content-preserving finalizers finished" || c.Status != corev1.ConditionFalse {
		t.Errorf("finalizers condition = %+v", c)
	}
	if applyConditions(&status, remaining, t1) {
		t.Error("same report again: changed = true")
	}
	if !applyConditions(&status, nil, t1) {
		t.Error("content gone: changed = false")
	}
	c := status.Conditions[3]
	if c.Type != corev1.NamespaceContentRemaining || c.Status != corev1.ConditionFalse || c.Reason != "ContentRemoved" || !c.LastTransitionTime.Equal(&t1) {
		t.Errorf("content condition = %+v, want ContentRemoved at %v", c, t1)
	}
	if c := status.Conditions[0]; !c.LastTransitionTime.Equal(&t0) {
		t.Errorf("an unchanged condition moved its lastTransitionTime to %v", c.LastTransitionTime)
	}
}
