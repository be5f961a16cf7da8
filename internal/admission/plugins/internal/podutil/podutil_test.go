package podutil

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

// TestObjectName pins the name upstream's admission errors show before a
// name is generated.
func TestObjectName(t *testing.T) {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	for _, tc := range []struct {
		a    admission.Attributes
		want string
	}{
		{admission.Attributes{Name: "n", Resource: pods}, "n"},
		{admission.Attributes{Resource: pods, Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "obj"}}}, "obj"},
		{admission.Attributes{Resource: pods, Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-"}}}, "web-"},
		{admission.Attributes{Resource: pods}, "Unknown"},
	} {
		if got := ObjectName(&tc.a); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	err := Forbidden(&admission.Attributes{Resource: pods, Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-"}}}, errString("no"))
	if err.Error() != `pods "web-" is forbidden: no` {
		t.Errorf("got %v", err)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
