package generic_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest/resttest"
)

func TestDeleteCollection(t *testing.T) {
	tests := []struct {
		name        string
		workers     int
		ns          string
		listOptions *metainternalversion.ListOptions
		options     *metav1.DeleteOptions
		wantDeleted []string
		wantLeft    []string
	}{
		{
			name: "namespace", ns: "a", listOptions: &metainternalversion.ListOptions{},
			wantDeleted: []string{"a/p1", "a/p2", "a/q1", "a/q2", "a/q3"}, wantLeft: []string{"b/p1"},
		},
		{
			name: "label selector, one worker", workers: 1, ns: "a",
			listOptions: &metainternalversion.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{"group": "q"})},
			wantDeleted: []string{"a/q1", "a/q2", "a/q3"}, wantLeft: []string{"a/p1", "a/p2", "b/p1"},
		},
		{
			name: "one page", ns: "a", listOptions: &metainternalversion.ListOptions{Limit: 2},
			wantDeleted: []string{"a/p1", "a/p2"}, wantLeft: []string{"a/q1", "a/q2", "a/q3", "b/p1"},
		},
		{
			name: "all namespaces", ns: "", listOptions: nil,
			wantDeleted: []string{"a/p1", "a/p2", "a/q1", "a/q2", "a/q3", "b/p1"}, wantLeft: []string{},
		},
		{
			name: "dry run", ns: "a", options: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}},
			wantDeleted: []string{"a/p1", "a/p2", "a/q1", "a/q2", "a/q3"}, wantLeft: []string{"a/p1", "a/p2", "a/q1", "a/q2", "a/q3", "b/p1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, func(s *generic.Store, _ *resttest.ConfigMapStrategy) { s.DeleteCollectionWorkers = tt.workers })
			for _, id := range [][3]string{{"a", "p1", "p"}, {"a", "p2", "p"}, {"a", "q1", "q"}, {"a", "q2", "q"}, {"a", "q3", "q"}, {"b", "p1", "p"}} {
				cm := newConfigMap(id[0], id[1], nil)
				cm.Labels = map[string]string{"group": id[2]}
				mustCreate(t, s, cm)
			}
			out, err := s.DeleteCollection(nsContext(tt.ns), nil, tt.options, tt.listOptions)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantDeleted, names(out.(*corev1.ConfigMapList))); diff != "" {
				t.Errorf("deleted (-want +got):\n%s", diff)
			}
			left, err := s.List(nsContext(""), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantLeft, names(left.(*corev1.ConfigMapList))); diff != "" {
				t.Errorf("left (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDeleteCollectionStopsOnError(t *testing.T) {
	s := newStore(t, func(s *generic.Store, _ *resttest.ConfigMapStrategy) { s.DeleteCollectionWorkers = 2 })
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		mustCreate(t, s, newConfigMap("ns", name, nil))
	}
	deny := func(_ context.Context, obj runtime.Object) error {
		return apierrors.NewForbidden(corev1.Resource("configmaps"), obj.(*corev1.ConfigMap).Name, errors.New("denied"))
	}
	_, err := s.DeleteCollection(nsContext("ns"), deny, nil, nil)
	if !apierrors.IsForbidden(err) {
		t.Fatalf("err = %v, want the validation's 403", err)
	}
	mustGet(t, s, "ns", "a")
}
