package validation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

func TestValidateNamespace(t *testing.T) {
	tests := []struct {
		name string
		ns   corev1.Namespace
		want []string
	}{
		{"valid", corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes", "example.com/cleanup"}}}, nil},
		{"subdomain is not a label", corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a.b"}},
			[]string{"metadata.name: Invalid value: " + validation.IsDNS1123Label("a.b")[0]}},
		{"namespace set", corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "b"}},
			[]string{"metadata.namespace: Forbidden: not allowed on this type"}},
		{"non-standard finalizer", corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"custom"}}},
			[]string{"spec.finalizers: Invalid value: name is neither a standard finalizer name nor is it fully qualified"}},
		{"malformed finalizer", corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"a/b/c"}}},
			[]string{"spec.finalizers: Invalid value: " + validation.IsQualifiedName("a/b/c")[0]}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidateNamespace(&tt.ns), tt.want)
	}
}

func TestValidateNamespaceStatusUpdate(t *testing.T) {
	now := metav1.Now()
	meta := metav1.ObjectMeta{Name: "a", ResourceVersion: "1"}
	deleting := metav1.ObjectMeta{Name: "a", ResourceVersion: "1", DeletionTimestamp: &now}
	tests := []struct {
		name string
		meta metav1.ObjectMeta
		ph   corev1.NamespacePhase
		want []string
	}{
		{"active", meta, corev1.NamespaceActive, nil},
		{"terminating without deletion", meta, corev1.NamespaceTerminating,
			[]string{"status.Phase: Invalid value: may only be 'Active' if `deletionTimestamp` is empty"}},
		{"terminating", deleting, corev1.NamespaceTerminating, nil},
		{"active while deleting", deleting, corev1.NamespaceActive,
			[]string{"status.Phase: Invalid value: may only be 'Terminating' if `deletionTimestamp` is not empty"}},
	}
	for _, tt := range tests {
		ns := corev1.Namespace{ObjectMeta: tt.meta, Status: corev1.NamespaceStatus{Phase: tt.ph}}
		old := corev1.Namespace{ObjectMeta: tt.meta}
		checkErrors(t, tt.name, ValidateNamespaceStatusUpdate(&ns, &old), tt.want)
	}
}

func TestValidateNamespaceFinalizeUpdate(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "a", ResourceVersion: "1"}
	old := corev1.Namespace{ObjectMeta: meta}
	ns := corev1.Namespace{ObjectMeta: meta, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes", "custom"}}}
	checkErrors(t, "finalize", ValidateNamespaceFinalizeUpdate(&ns, &old),
		[]string{"spec.finalizers[1]: Invalid value: name is neither a standard finalizer name nor is it fully qualified"})

	renamed := corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "b", ResourceVersion: "1"}}
	checkErrors(t, "rename", ValidateNamespaceUpdate(&renamed, &old),
		[]string{"metadata.name: Invalid value: field is immutable"})
}

func TestValidateServiceAccount(t *testing.T) {
	checkErrors(t, "valid", ValidateServiceAccount(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "build.bot", Namespace: "ns"}}), nil)
	checkErrors(t, "bad name", ValidateServiceAccount(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "Bot", Namespace: "ns"}}),
		[]string{"metadata.name: Invalid value: " + validation.IsDNS1123Subdomain("Bot")[0]})
	old := corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "bot", Namespace: "ns", ResourceVersion: "1"}}
	moved := corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "bot", Namespace: "other", ResourceVersion: "1"}}
	checkErrors(t, "namespace change", ValidateServiceAccountUpdate(&moved, &old),
		[]string{"metadata.namespace: Invalid value: field is immutable"})
}
