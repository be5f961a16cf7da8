package handlers

import (
	"strings"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kapi-dev/kapi/internal/registry/registrytest"
)

func TestManagerOrUserAgent(t *testing.T) {
	tests := []struct {
		manager, userAgent, want string
	}{
		{manager: "A", userAgent: "kubectl/v1.37.2", want: "A"},
		{userAgent: "kubectl/v1.37.2 (linux/amd64) kubernetes/0000000", want: "kubectl"},
		{userAgent: "kubectl-client-side-apply/v1.37.2", want: "kubectl-client-side-apply"},
		{userAgent: "Go-http-client/2.0", want: "Go-http-client"},
		{userAgent: "no-slash", want: "no-slash"},
		{userAgent: "", want: ""},
		{userAgent: "tab\there\x00/1", want: "tabhere"},
		{userAgent: strings.Repeat("x", 200), want: strings.Repeat("x", 128)},
		{userAgent: strings.Repeat("x", 127) + "é/1", want: strings.Repeat("x", 127)},
	}
	for _, tt := range tests {
		if got := managerOrUserAgent(tt.manager, tt.userAgent); got != tt.want {
			t.Errorf("managerOrUserAgent(%q, %q) = %q, want %q", tt.manager, tt.userAgent, got, tt.want)
		}
	}
}

func TestResetFieldsFilter(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := certificatesv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	kind := certificatesv1.SchemeGroupVersion.WithKind("CertificateSigningRequest")
	request := fieldpath.MakePathOrDie("spec", "request")
	certificate := fieldpath.MakePathOrDie("status", "certificate")
	conditions := fieldpath.MakePathOrDie("status", "conditions")
	tests := []struct {
		name             string
		reset            map[string]struct{}
		kept, resetPaths []fieldpath.Path
	}{
		{name: "none", kept: []fieldpath.Path{request, certificate, conditions}},
		{name: "a top-level field", reset: map[string]struct{}{"spec": {}}, kept: []fieldpath.Path{certificate, conditions}, resetPaths: []fieldpath.Path{request}},
		{name: "a nested field", reset: map[string]struct{}{"spec": {}, "status.certificate": {}},
			kept: []fieldpath.Path{conditions}, resetPaths: []fieldpath.Path{request, certificate}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			filters, err := resetFieldsFilter(scheme, kind, kind.GroupVersion(), tt.reset)
			if err != nil {
				t.Fatal(err)
			}
			written := fieldpath.NewSet(request, certificate, conditions)
			if f, ok := filters[fieldpath.APIVersion("certificates.k8s.io/v1")]; ok {
				written = f.Filter(written)
			} else if len(tt.reset) > 0 {
				t.Fatalf("no filter for certificates.k8s.io/v1 in %v", filters)
			}
			for _, p := range tt.kept {
				if !written.Has(p) {
					t.Errorf("%s was filtered out", p)
				}
			}
			for _, p := range tt.resetPaths {
				if written.Has(p) {
					t.Errorf("%s was kept", p)
				}
			}
		})
	}
}

func TestKeepManagedFieldsTimes(t *testing.T) {
	then := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(then.Add(time.Hour))
	entries := func(ts ...metav1.Time) []metav1.ManagedFieldsEntry {
		var out []metav1.ManagedFieldsEntry
		for i, t := range ts {
			out = append(out, metav1.ManagedFieldsEntry{Manager: string(rune('A' + i)), Operation: metav1.ManagedFieldsOperationApply,
				APIVersion: "v1", Time: &t, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{}}`)}})
		}
		return out
	}
	pod := func(cpu string, mf []metav1.ManagedFieldsEntry) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p", ResourceVersion: "5", ManagedFields: mf},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
				Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}},
		}
	}
	tests := []struct {
		name     string
		obj, old *corev1.Pod
		want     metav1.Time
	}{
		{name: "only times moved", obj: pod("1", entries(now)), old: pod("1", entries(then)), want: then},
		{name: "an equal quantity spelled otherwise", obj: pod("1000m", entries(now)), old: pod("1", entries(then)), want: then},
		{name: "the object changed", obj: pod("2", entries(now)), old: pod("1", entries(then)), want: now},
		{name: "an entry was added", obj: pod("1", entries(now, now)), old: pod("1", entries(then)), want: now},
		{name: "an entry changed", obj: pod("1", func() []metav1.ManagedFieldsEntry {
			e := entries(now)
			e[0].Operation = metav1.ManagedFieldsOperationUpdate
			return e
		}()), old: pod("1", entries(then)), want: now},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.obj.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
			keepManagedFieldsTimes(tt.obj, tt.old)
			if got := tt.obj.ManagedFields[0].Time; !got.Equal(&tt.want) {
				t.Errorf("time %v, want %v", got, tt.want)
			}
			if tt.obj.Kind != "Pod" {
				t.Errorf("kind %q, want Pod kept", tt.obj.Kind)
			}
		})
	}
}

// TestFieldManagerAcrossGroups: core/v1 Events served as
// events.k8s.io/v1 record managed fields in the served version.
func TestFieldManagerAcrossGroups(t *testing.T) {
	scheme := registrytest.NewScheme(t)
	tc := applyconfigurations.NewTypeConverter(clientgoscheme.Scheme)
	fm, err := NewFieldManager(tc, scheme, eventsv1.SchemeGroupVersion.WithKind("Event"), corev1.SchemeGroupVersion, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	live := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: "ns"}}
	obj := live.DeepCopy()
	obj.Message = "hello"
	got, err := fm.Update(live, obj, "A")
	if err != nil {
		t.Fatal(err)
	}
	entries := got.(*corev1.Event).ManagedFields
	if len(entries) != 1 || entries[0].APIVersion != "events.k8s.io/v1" || !strings.Contains(string(entries[0].FieldsV1.Raw), `"f:note"`) {
		t.Errorf("entries %+v, want one of events.k8s.io/v1 owning note", entries)
	}
}
