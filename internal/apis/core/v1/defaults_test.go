package v1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := RegisterDefaults(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

func TestDefaults(t *testing.T) {
	tests := []struct {
		name     string
		obj, out runtime.Object
	}{
		{"secret type", &corev1.Secret{}, &corev1.Secret{Type: corev1.SecretTypeOpaque}},
		{"secret type kept", &corev1.Secret{Type: corev1.SecretTypeTLS}, &corev1.Secret{Type: corev1.SecretTypeTLS}},
		{"secret list", &corev1.SecretList{Items: []corev1.Secret{{}}}, &corev1.SecretList{Items: []corev1.Secret{{Type: corev1.SecretTypeOpaque}}}},
		{"config map data", &corev1.ConfigMap{}, &corev1.ConfigMap{Data: map[string]string{}}},
		{"namespace", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{corev1.LabelMetadataName: "wrong"}}},
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{corev1.LabelMetadataName: "a"}}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}},
		{"namespace without name", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "a-"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "a-"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}},
	}
	scheme := newScheme(t)
	for _, tt := range tests {
		scheme.Default(tt.obj)
		if diff := cmp.Diff(tt.out, tt.obj); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestFieldLabels(t *testing.T) {
	scheme := newScheme(t)
	if err := AddFieldLabelConversions(scheme); err != nil {
		t.Fatal(err)
	}
	gvk := corev1.SchemeGroupVersion.WithKind("Event")
	label, value, err := scheme.ConvertFieldLabel(gvk, "involvedObject.name", "p")
	if err != nil || label != "involvedObject.name" || value != "p" {
		t.Errorf("got %q=%q, %v", label, value, err)
	}
	if _, _, err := scheme.ConvertFieldLabel(gvk, "message", "x"); err == nil || err.Error() != "field label not supported: message" {
		t.Errorf("unsupported label error = %v", err)
	}
}
