package namespace

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestPrepareForCreate(t *testing.T) {
	tests := []struct {
		name       string
		finalizers []corev1.FinalizerName
		want       []corev1.FinalizerName
	}{
		{"none", nil, []corev1.FinalizerName{"kubernetes"}},
		{"others", []corev1.FinalizerName{"example.com/x"}, []corev1.FinalizerName{"example.com/x", "kubernetes"}},
		{"already", []corev1.FinalizerName{"kubernetes"}, []corev1.FinalizerName{"kubernetes"}},
	}
	for _, tt := range tests {
		ns := &corev1.Namespace{Spec: corev1.NamespaceSpec{Finalizers: tt.finalizers}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}
		NewStrategy(runtime.NewScheme()).PrepareForCreate(context.Background(), ns)
		want := &corev1.Namespace{Spec: corev1.NamespaceSpec{Finalizers: tt.want}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
		if diff := cmp.Diff(want, ns); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestCanonicalizeLabelsName(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gen-x7k2p", Labels: map[string]string{corev1.LabelMetadataName: "", "team": "a"}}}
	NewStrategy(runtime.NewScheme()).Canonicalize(ns)
	want := map[string]string{corev1.LabelMetadataName: "gen-x7k2p", "team": "a"}
	if diff := cmp.Diff(want, ns.Labels); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestUpdateStrategiesKeepTheirParts checks what each update path takes
// from the stored namespace.
func TestUpdateStrategiesKeepTheirParts(t *testing.T) {
	old := &corev1.Namespace{Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	sent := func() *corev1.Namespace {
		return &corev1.Namespace{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"new": "label"}},
			Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"example.com/new"}},
			Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating},
		}
	}
	main := NewStrategy(runtime.NewScheme())
	tests := []struct {
		name    string
		prepare func(obj, old runtime.Object)
		spec    []corev1.FinalizerName
		phase   corev1.NamespacePhase
	}{
		{"main", func(o, p runtime.Object) { main.PrepareForUpdate(context.Background(), o, p) }, old.Spec.Finalizers, old.Status.Phase},
		{"status", func(o, p runtime.Object) { StatusStrategy{main}.PrepareForUpdate(context.Background(), o, p) }, old.Spec.Finalizers, corev1.NamespaceTerminating},
		{"finalize", func(o, p runtime.Object) { FinalizeStrategy{main}.PrepareForUpdate(context.Background(), o, p) }, []corev1.FinalizerName{"example.com/new"}, old.Status.Phase},
	}
	for _, tt := range tests {
		ns := sent()
		tt.prepare(ns, old.DeepCopy())
		if diff := cmp.Diff(tt.spec, ns.Spec.Finalizers); diff != "" {
			t.Errorf("%s: spec.finalizers (-want +got):\n%s", tt.name, diff)
		}
		if ns.Status.Phase != tt.phase {
			t.Errorf("%s: phase = %q, want %q", tt.name, ns.Status.Phase, tt.phase)
		}
		if ns.Labels["new"] != "label" {
			t.Errorf("%s: metadata change lost", tt.name)
		}
	}
}

func TestStatusValidation(t *testing.T) {
	s := StatusStrategy{NewStrategy(runtime.NewScheme())}
	old := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a", ResourceVersion: "1"}}
	ns := old.DeepCopy()
	ns.Status.Phase = corev1.NamespaceTerminating
	errs := s.ValidateUpdate(context.Background(), ns, old)
	if len(errs) != 1 || errs[0].Field != "status.Phase" {
		t.Errorf("errors = %v, want one at status.Phase", errs)
	}
}

func TestGetAttrs(t *testing.T) {
	_, fs, err := GetAttrs(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"metadata.name": "a", "name": "a", "status.phase": "Active"}
	if diff := cmp.Diff(want, map[string]string(fs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestShouldDeleteDuringUpdate(t *testing.T) {
	now := metav1.Now()
	terminating := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &now}}
	tests := []struct {
		name     string
		obj, old *corev1.Namespace
		want     bool
	}{
		{"nothing left", &corev1.Namespace{}, terminating, true},
		{"spec finalizer left", &corev1.Namespace{Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}}}, terminating, false},
		{"metadata finalizer left", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Finalizers: []string{"x/y"}}}, terminating, false},
		{"not terminating", &corev1.Namespace{}, &corev1.Namespace{}, false},
	}
	for _, tt := range tests {
		if got := ShouldDeleteDuringUpdate(tt.obj, tt.old); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
