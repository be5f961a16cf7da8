package namespacelifecycle

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

func TestValidate(t *testing.T) {
	namespaces := map[string]*corev1.Namespace{
		"active":      {ObjectMeta: metav1.ObjectMeta{Name: "active"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
		"terminating": {ObjectMeta: metav1.ObjectMeta{Name: "terminating"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
	}
	get := func(_ context.Context, name string) (*corev1.Namespace, error) {
		if ns, ok := namespaces[name]; ok {
			return ns, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	p := New(get, "default", "kube-system")
	cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	nss := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

	tests := []struct {
		name    string
		attrs   admission.Attributes
		wantErr func(error) bool
		message string
	}{
		{"create in active", admission.Attributes{Namespace: "active", Resource: cms, Operation: admission.Create}, nil, ""},
		{"create in missing", admission.Attributes{Namespace: "nope", Resource: cms, Operation: admission.Create}, apierrors.IsNotFound, `namespaces "nope" not found`},
		{"create in terminating", admission.Attributes{Name: "x", Namespace: "terminating", Resource: cms, Operation: admission.Create}, apierrors.IsForbidden,
			`configmaps "x" is forbidden: unable to create new content in namespace terminating because it is being terminated`},
		{"update in terminating", admission.Attributes{Namespace: "terminating", Resource: cms, Operation: admission.Update}, nil, ""},
		{"delete immortal", admission.Attributes{Name: "default", Resource: nss, Operation: admission.Delete}, apierrors.IsForbidden, `namespaces "default" is forbidden: this namespace may not be deleted`},
		{"delete ordinary", admission.Attributes{Name: "active", Resource: nss, Operation: admission.Delete}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Validate(context.Background(), &tt.attrs)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !tt.wantErr(err) {
				t.Fatalf("got %v, want a matching error", err)
			}
			if err.Error() != tt.message {
				t.Errorf("message:\n got %q\nwant %q", err.Error(), tt.message)
			}
		})
	}
}
