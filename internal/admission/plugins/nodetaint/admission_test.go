package nodetaint

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kapi-dev/kapi/internal/admission"
)

func TestAdmit(t *testing.T) {
	nodes := schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	other := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	notReadyValued := corev1.Taint{Key: corev1.TaintNodeNotReady, Value: "x", Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name string
		op   admission.Operation
		sub  string
		have []corev1.Taint
		want []corev1.Taint
	}{
		{"create", admission.Create, "", nil, []corev1.Taint{notReady}},
		{"create with other taints", admission.Create, "", []corev1.Taint{other}, []corev1.Taint{other, notReady}},
		{"already tainted", admission.Create, "", []corev1.Taint{notReadyValued}, []corev1.Taint{notReadyValued}},
		{"update", admission.Update, "", nil, nil},
		{"status", admission.Create, "status", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			node := &corev1.Node{Spec: corev1.NodeSpec{Taints: tt.have}}
			if err := (Plugin{}).Admit(context.Background(), &admission.Attributes{Name: "n", Resource: nodes, Subresource: tt.sub, Operation: tt.op, Object: node}); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, node.Spec.Taints); d != "" {
				t.Errorf("taints (-want +got):\n%s", d)
			}
		})
	}
}
