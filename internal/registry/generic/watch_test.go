package generic_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
)

// event is what a test compares of a watch event.
type event struct {
	Type watch.EventType
	Name string
}

// collect reads n events, failing when they do not come.
func collect(t *testing.T, w watch.Interface, n int) []event {
	t.Helper()
	var got []event
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %v", got)
			}
			cm, isCM := ev.Object.(*corev1.ConfigMap)
			if !isCM {
				t.Fatalf("event %s carries %T", ev.Type, ev.Object)
			}
			got = append(got, event{ev.Type, cm.Namespace + "/" + cm.Name})
		case <-timeout:
			t.Fatalf("got %v, want %d events", got, n)
		}
	}
	return got
}

func TestWatch(t *testing.T) {
	tests := []struct {
		name    string
		ns      string
		options *metainternalversion.ListOptions
		want    []event
	}{
		{
			name: "namespace", ns: "ns", options: &metainternalversion.ListOptions{},
			want: []event{{watch.Added, "ns/foo"}, {watch.Modified, "ns/foo"}, {watch.Added, "ns/bar"}, {watch.Deleted, "ns/foo"}},
		},
		{
			name: "all namespaces", ns: "", options: nil,
			want: []event{{watch.Added, "ns/foo"}, {watch.Added, "other/foo"}, {watch.Modified, "ns/foo"}, {watch.Added, "ns/bar"}, {watch.Deleted, "ns/foo"}},
		},
		{
			name: "one object", ns: "ns", options: &metainternalversion.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "foo")},
			want: []event{{watch.Added, "ns/foo"}, {watch.Modified, "ns/foo"}, {watch.Deleted, "ns/foo"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, nil)
			w, err := s.Watch(nsContext(tt.ns), tt.options)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()

			foo := mustCreate(t, s, newConfigMap("ns", "foo", nil))
			mustCreate(t, s, newConfigMap("other", "foo", nil))
			mustUpdate(t, s, foo, "changed")
			mustCreate(t, s, newConfigMap("ns", "bar", nil))
			if _, _, err := s.Delete(nsContext("ns"), "foo", nil, &metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, collect(t, w, len(tt.want))); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWatchFromResourceVersion(t *testing.T) {
	s := newStore(t, nil)
	foo := mustCreate(t, s, newConfigMap("ns", "foo", nil))
	mustCreate(t, s, newConfigMap("ns", "bar", nil))
	w, err := s.Watch(nsContext("ns"), &metainternalversion.ListOptions{ResourceVersion: foo.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if diff := cmp.Diff([]event{{watch.Added, "ns/bar"}}, collect(t, w, 1)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestWatchSendInitialEvents(t *testing.T) {
	s := newStore(t, nil)
	mustCreate(t, s, newConfigMap("ns", "foo", nil))
	yes := true
	w, err := s.Watch(nsContext("ns"), &metainternalversion.ListOptions{
		SendInitialEvents: &yes, AllowWatchBookmarks: true,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if diff := cmp.Diff([]event{{watch.Added, "ns/foo"}}, collect(t, w, 1)); diff != "" {
		t.Errorf("initial events (-want +got):\n%s", diff)
	}
	select {
	case ev := <-w.ResultChan():
		m, err := meta.Accessor(ev.Object)
		if ev.Type != watch.Bookmark || err != nil || m.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
			t.Errorf("got %s %v, want the initial-events bookmark", ev.Type, ev.Object)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no bookmark after the initial events")
	}
}
