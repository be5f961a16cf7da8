package alwaysdeny

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
	"github.com/kapi-dev/kapi/internal/admission/plugins/alwaysadmit"
)

func TestAlwaysDenyAndAdmit(t *testing.T) {
	a := &admission.Attributes{Namespace: "ns", Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
		Operation: admission.Create, Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "cm-"}}}
	for _, err := range []error{Plugin{}.Admit(context.Background(), a), Plugin{}.Validate(context.Background(), a)} {
		if !apierrors.IsForbidden(err) || err.Error() != `configmaps "cm-" is forbidden: admission control is denying all modifications` {
			t.Errorf("got %v", err)
		}
	}
	if err := (alwaysadmit.Plugin{}).Admit(context.Background(), a); err != nil {
		t.Error(err)
	}
	if err := (alwaysadmit.Plugin{}).Validate(context.Background(), a); err != nil {
		t.Error(err)
	}
}
