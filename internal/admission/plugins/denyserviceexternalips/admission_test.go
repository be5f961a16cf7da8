package denyserviceexternalips

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/admission"
)

func svc(ips ...string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"}, Spec: corev1.ServiceSpec{ExternalIPs: ips}}
}

func TestValidate(t *testing.T) {
	const denied = `services "s" is forbidden: Use of external IPs is denied by admission control`
	tests := []struct {
		name     string
		op       admission.Operation
		obj, old *corev1.Service
		message  string
	}{
		{"create without", admission.Create, svc(), nil, ""},
		{"create with", admission.Create, svc("1.2.3.4"), nil, denied},
		{"update keeping", admission.Update, svc("1.2.3.4"), svc("1.2.3.4", "5.6.7.8"), ""},
		{"update dropping all", admission.Update, svc(), svc("1.2.3.4"), ""},
		{"update adding", admission.Update, svc("1.2.3.4", "9.9.9.9"), svc("1.2.3.4"), denied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admission.Attributes{Name: "s", Namespace: "ns", Operation: tt.op,
				Resource: corev1.SchemeGroupVersion.WithResource("services"), Object: tt.obj}
			if tt.old != nil {
				a.OldObject = tt.old
			}
			err := Plugin{}.Validate(context.Background(), a)
			if tt.message == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !apierrors.IsForbidden(err) || err.Error() != tt.message {
				t.Fatalf("got %v, want 403 %s", err, tt.message)
			}
		})
	}
}
