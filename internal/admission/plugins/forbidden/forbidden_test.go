package forbidden

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

func TestNew(t *testing.T) {
	cms := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	tests := []struct {
		name    string
		attrs   admission.Attributes
		message string
	}{
		{"request name", admission.Attributes{Name: "a", Resource: cms}, `configmaps "a" is forbidden: no`},
		{"object name", admission.Attributes{Resource: cms, Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}}, `configmaps "b" is forbidden: no`},
		{"generate name", admission.Attributes{Resource: cms, Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "c-"}}}, `configmaps "c-" is forbidden: no`},
		{"no object", admission.Attributes{Resource: cms}, `configmaps "Unknown" is forbidden: no`},
		{"no metadata", admission.Attributes{Resource: cms, Object: &runtime.Unknown{}}, `configmaps "Unknown/errorGettingName" is forbidden: no`},
	}
	for _, tt := range tests {
		err := New(&tt.attrs, errors.New("no"))
		if !apierrors.IsForbidden(err) || err.Error() != tt.message {
			t.Errorf("%s: got %v, want %s", tt.name, err, tt.message)
		}
	}
	already := apierrors.NewForbidden(schema.GroupResource{Resource: "x"}, "y", errors.New("z"))
	if got := New(&admission.Attributes{Name: "a", Resource: cms}, already); got != already {
		t.Errorf("a Forbidden error was wrapped again: %v", got)
	}
}
