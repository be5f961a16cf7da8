package namespaceexists

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

func TestValidate(t *testing.T) {
	p := New(func(_ context.Context, name string) (*corev1.Namespace, error) {
		switch name {
		case "there":
			return &corev1.Namespace{}, nil
		case "broken":
			return nil, errors.New("storage down")
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	})
	cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	nss := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	tests := []struct {
		name  string
		attrs admission.Attributes
		err   string
	}{
		{"existing", admission.Attributes{Namespace: "there", Resource: cms, Operation: admission.Create}, ""},
		{"missing on delete", admission.Attributes{Namespace: "gone", Resource: cms, Operation: admission.Delete}, `namespaces "gone" not found`},
		{"connect is not checked", admission.Attributes{Namespace: "gone", Resource: cms, Operation: admission.Connect}, ""},
		{"namespaces themselves", admission.Attributes{Namespace: "gone", Name: "gone", Resource: nss, Operation: admission.Create}, ""},
		{"lookup failure", admission.Attributes{Namespace: "broken", Resource: cms, Operation: admission.Update}, "Internal error occurred: storage down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Validate(context.Background(), &tt.attrs)
			if (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
				t.Fatalf("error:\n got %v\nwant %s", err, tt.err)
			}
		})
	}
}
