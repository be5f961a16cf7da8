package generic_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

func TestGet(t *testing.T) {
	s := newStore(t, nil)
	created := mustCreate(t, s, newConfigMap("ns", "foo", nil))
	tests := []struct {
		name, ns, objName string
		wantCode          int32
		wantMessage       string
	}{
		{name: "found", ns: "ns", objName: "foo"},
		{name: "missing", ns: "ns", objName: "bar", wantCode: 404, wantMessage: `configmaps "bar" not found`},
		{name: "other namespace", ns: "other", objName: "foo", wantCode: 404, wantMessage: `configmaps "foo" not found`},
		{name: "no namespace", ns: "", objName: "foo", wantCode: 400, wantMessage: "Namespace parameter required."},
		{name: "slash in name", ns: "ns", objName: "a/b", wantCode: 400, wantMessage: `Name parameter invalid: "a/b": may not contain '/'`},
		{name: "dot-dot name", ns: "ns", objName: "..", wantCode: 400, wantMessage: `Name parameter invalid: "..": may not be '..'`},
		{name: "percent in name", ns: "ns", objName: "a%b", wantCode: 400, wantMessage: `Name parameter invalid: "a%b": may not contain '%'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := s.Get(nsContext(tt.ns), tt.objName, &metav1.GetOptions{})
			wantStatus(t, err, tt.wantCode, tt.wantMessage)
			if err == nil && out.(*corev1.ConfigMap).UID != created.UID {
				t.Errorf("got uid %q, want %q", out.(*corev1.ConfigMap).UID, created.UID)
			}
		})
	}
}

// names lists the namespace/name of every item.
func names(list *corev1.ConfigMapList) []string {
	out := []string{}
	for _, item := range list.Items {
		out = append(out, item.Namespace+"/"+item.Name)
	}
	return out
}

func TestList(t *testing.T) {
	s := newStore(t, nil)
	for _, cm := range []*corev1.ConfigMap{
		newConfigMap("a", "one", nil), newConfigMap("a", "two", nil), newConfigMap("b", "one", nil),
		newConfigMap("ab", "three", nil),
	} {
		cm.Labels = map[string]string{"name": cm.Name}
		mustCreate(t, s, cm)
	}
	tests := []struct {
		name    string
		ns      string
		options *metainternalversion.ListOptions
		want    []string
	}{
		{name: "one namespace", ns: "a", options: nil, want: []string{"a/one", "a/two"}},
		{name: "all namespaces", ns: "", options: &metainternalversion.ListOptions{}, want: []string{"a/one", "a/two", "ab/three", "b/one"}},
		{name: "label selector", ns: "", options: &metainternalversion.ListOptions{
			LabelSelector: labels.SelectorFromSet(labels.Set{"name": "one"}),
		}, want: []string{"a/one", "b/one"}},
		{name: "field selector on name", ns: "a", options: &metainternalversion.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("metadata.name", "two"),
		}, want: []string{"a/two"}},
		{name: "field selector on namespace", ns: "", options: &metainternalversion.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("metadata.namespace", "b"),
		}, want: []string{"b/one"}},
		{name: "field selector on name across namespaces", ns: "", options: &metainternalversion.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("metadata.name", "one"),
		}, want: []string{"a/one", "b/one"}},
		{name: "field selector on a missing name", ns: "a", options: &metainternalversion.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("metadata.name", "nine"),
		}, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := s.List(nsContext(tt.ns), tt.options)
			if err != nil {
				t.Fatal(err)
			}
			list := out.(*corev1.ConfigMapList)
			if diff := cmp.Diff(tt.want, names(list)); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if list.ResourceVersion == "" {
				t.Error("list has no resourceVersion")
			}
		})
	}
}

func TestListPages(t *testing.T) {
	s := newStore(t, nil)
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		mustCreate(t, s, newConfigMap("ns", name, nil))
	}
	var got []string
	options := &metainternalversion.ListOptions{Limit: 2}
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatalf("more pages than expected; so far %v", got)
		}
		out, err := s.List(nsContext("ns"), options)
		if err != nil {
			t.Fatal(err)
		}
		list := out.(*corev1.ConfigMapList)
		if len(list.Items) > 2 {
			t.Fatalf("page has %d items, limit 2", len(list.Items))
		}
		got = append(got, names(list)...)
		if list.Continue == "" {
			break
		}
		options.Continue = list.Continue
	}
	if diff := cmp.Diff([]string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e"}, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}

	_, err := s.List(nsContext("ns"), &metainternalversion.ListOptions{Limit: 2, Continue: "not-a-token"})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("bad continue token: err = %v, want 400", err)
	}
}

func TestListExpired(t *testing.T) {
	s, backend := newStoreWithBackend(t, nil)
	first := mustCreate(t, s, newConfigMap("ns", "a", nil))
	mustCreate(t, s, newConfigMap("ns", "b", nil))
	latest := mustCreate(t, s, newConfigMap("ns", "c", nil))
	rv, err := strconv.ParseInt(latest.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := backend.Compact(t.Context(), rv); err != nil {
		t.Fatal(err)
	}
	_, err = s.List(nsContext("ns"), &metainternalversion.ListOptions{
		ResourceVersion: first.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact,
	})
	wantStatus(t, err, 410, "The resourceVersion for the provided list is too old.")
}
