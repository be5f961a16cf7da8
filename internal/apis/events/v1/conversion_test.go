package v1_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/apis/install"
)

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := install.InstallAll(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func fullEvent() *eventsv1.Event {
	now := metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC))
	ts := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	return &eventsv1.Event{
		ObjectMeta:               metav1.ObjectMeta{Name: "e", Namespace: "ns", Labels: map[string]string{"a": "b"}},
		EventTime:                now,
		Series:                   &eventsv1.EventSeries{Count: 3, LastObservedTime: now},
		ReportingController:      "example.com/ctrl",
		ReportingInstance:        "ctrl-1",
		Action:                   "Scale",
		Reason:                   "Scaled",
		Regarding:                corev1.ObjectReference{Kind: "Deployment", Namespace: "ns", Name: "d", APIVersion: "apps/v1"},
		Related:                  &corev1.ObjectReference{Kind: "ReplicaSet", Name: "r"},
		Note:                     "scaled up",
		Type:                     "Normal",
		DeprecatedSource:         corev1.EventSource{Component: "c", Host: "h"},
		DeprecatedFirstTimestamp: ts,
		DeprecatedLastTimestamp:  ts,
		DeprecatedCount:          7,
	}
}

func TestRoundTripThroughCore(t *testing.T) {
	scheme := newScheme(t)
	in := fullEvent()
	core := &corev1.Event{}
	if err := scheme.Convert(in, core, nil); err != nil {
		t.Fatal(err)
	}
	if core.InvolvedObject.Name != "d" || core.Message != "scaled up" || core.Count != 7 || core.Series.Count != 3 || core.Source.Host != "h" {
		t.Errorf("core event = %+v", core)
	}
	back := &eventsv1.Event{}
	if err := scheme.Convert(core, back, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestListConverts(t *testing.T) {
	scheme := newScheme(t)
	core := &corev1.Event{}
	if err := scheme.Convert(fullEvent(), core, nil); err != nil {
		t.Fatal(err)
	}
	list := &corev1.EventList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []corev1.Event{*core}}
	got := &eventsv1.EventList{}
	if err := scheme.Convert(list, got, nil); err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != "9" || len(got.Items) != 1 || got.Items[0].Note != "scaled up" {
		t.Fatalf("converted list = %#v", got)
	}
}
