package event

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/endpoints/request"
	"github.com/kapi-dev/kapi/internal/registry/registrytest"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// newStyleEvent is valid on core/v1 but not on events.k8s.io/v1, which
// forbids count.
func newStyleEvent() *corev1.Event {
	return &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "e", Namespace: "ns"},
		InvolvedObject:      corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: "ns"},
		EventTime:           metav1.NewMicroTime(time.Now()),
		Type:                corev1.EventTypeNormal,
		ReportingController: "example.com/ctl", ReportingInstance: "i", Action: "Do", Reason: "Done",
		Count: 2,
	}
}

func withVersion(group, version string) context.Context {
	return request.WithRequestInfo(context.Background(), &request.RequestInfo{APIGroup: group, APIVersion: version})
}

func TestValidateByRequestVersion(t *testing.T) {
	s := NewStrategy(runtime.NewScheme())
	if errs := s.Validate(withVersion("", "v1"), newStyleEvent()); len(errs) != 0 {
		t.Errorf("core/v1: %v", errs)
	}
	errs := s.Validate(withVersion("events.k8s.io", "v1"), newStyleEvent())
	if len(errs) != 1 || errs[0].Field != "count" {
		t.Errorf("events.k8s.io/v1: %v, want count needs to be unset", errs)
	}
	if errs := s.Validate(context.Background(), newStyleEvent()); len(errs) != 1 {
		t.Errorf("no request info: %v, want the strict rules", errs)
	}
}

func TestGetAttrs(t *testing.T) {
	e := newStyleEvent()
	_, fs, err := GetAttrs(e)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"metadata.name": "e", "metadata.namespace": "ns",
		"involvedObject.kind": "Pod", "involvedObject.namespace": "ns", "involvedObject.name": "p",
		"involvedObject.uid": "", "involvedObject.apiVersion": "", "involvedObject.resourceVersion": "", "involvedObject.fieldPath": "",
		"reason": "Done", "reportingComponent": "example.com/ctl", "source": "example.com/ctl", "type": "Normal",
	}
	if diff := cmp.Diff(want, map[string]string(fs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	e.Source.Component = "kubelet"
	if _, fs, _ := GetAttrs(e); fs["source"] != "kubelet" {
		t.Errorf("source = %q, want the source component first", fs["source"])
	}
}

func TestStorage(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	r, err := NewREST(scheme, registrytest.NewOptionsGetter(t, scheme))
	if err != nil {
		t.Fatalf("NewREST: %v", err)
	}
	ctx := request.WithRequestInfo(registrytest.NamespaceContext("ns"), &request.RequestInfo{APIVersion: "v1"})
	// A PUT creates a missing event.
	_, created, err := r.Update(ctx, "e", rest.DefaultUpdatedObjectInfo(newStyleEvent()), nil, nil, false, nil)
	if err != nil || !created {
		t.Fatalf("update-create: created=%v err=%v", created, err)
	}
	// An old-style event (no eventTime) must be in its object's namespace.
	bad := newStyleEvent()
	bad.Name, bad.InvolvedObject.Namespace, bad.EventTime = "f", "other", metav1.MicroTime{}
	if _, err := r.Create(ctx, bad, nil, nil); !apierrors.IsInvalid(err) {
		t.Fatalf("create with mismatched namespace: %v, want Invalid", err)
	}
	list, err := r.List(ctx, &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("involvedObject.name", "p")})
	if err != nil || len(list.(*corev1.EventList).Items) != 1 {
		t.Fatalf("list by involvedObject.name: %v %v", list, err)
	}
	if r.ShortNames()[0] != "ev" || r.GetSingularName() != "event" {
		t.Errorf("short=%v singular=%q", r.ShortNames(), r.GetSingularName())
	}
}
