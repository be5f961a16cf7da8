package defaulttolerationseconds

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/admission"
)

func TestAdmit(t *testing.T) {
	notReady := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	unreachable := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60)}
	mine := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](5)}
	noSchedule := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	everything := corev1.Toleration{Operator: corev1.TolerationOpExists}
	anyEffect := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists}
	tests := []struct {
		name string
		have []corev1.Toleration
		want []corev1.Toleration
	}{
		{"none", nil, []corev1.Toleration{notReady, unreachable}},
		{"own not-ready kept", []corev1.Toleration{mine}, []corev1.Toleration{mine, unreachable}},
		{"NoSchedule does not count", []corev1.Toleration{noSchedule}, []corev1.Toleration{noSchedule, notReady, unreachable}},
		{"empty key tolerates all", []corev1.Toleration{everything}, []corev1.Toleration{everything}},
		{"empty effect covers NoExecute", []corev1.Toleration{anyEffect}, []corev1.Toleration{anyEffect, notReady}},
	}
	p := New(300, 60)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: tt.have}}
			a := &admission.Attributes{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Operation: admission.Create, Object: pod}
			if err := p.Admit(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, pod.Spec.Tolerations); d != "" {
				t.Errorf("tolerations (-want +got):\n%s", d)
			}
		})
	}
}

func TestSkips(t *testing.T) {
	p := New(300, 300)
	for _, a := range []admission.Attributes{
		{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Subresource: "status", Operation: admission.Update, Object: &corev1.Pod{}},
		{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Operation: admission.Delete, Object: &corev1.Pod{}},
	} {
		if err := p.Admit(context.Background(), &a); err != nil {
			t.Fatal(err)
		}
		if tol := a.Object.(*corev1.Pod).Spec.Tolerations; len(tol) != 0 {
			t.Errorf("%s %s: tolerations added: %v", a.Operation, a.Subresource, tol)
		}
	}
	err := p.Admit(context.Background(), &admission.Attributes{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Operation: admission.Create, Object: &corev1.Node{}})
	if err == nil || err.Error() != "expected *api.Pod but got *v1.Node" {
		t.Errorf("got %v", err)
	}
}
