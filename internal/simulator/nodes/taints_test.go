package nodes

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestWantTaints(t *testing.T) {
	custom := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	unsched := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	notReadyExecute := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}
	ready := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	for _, tc := range []struct {
		name          string
		taints        []corev1.Taint
		conds         []corev1.NodeCondition
		unschedulable bool
		want          []corev1.Taint
	}{
		{"admission's not-ready taint goes once Ready", []corev1.Taint{notReady}, ready, false, nil},
		{"not Ready keeps it", []corev1.Taint{notReady}, []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}, false, []corev1.Taint{notReady}},
		{"no Ready condition adds it", nil, nil, false, []corev1.Taint{notReady}},
		{"cordon adds unschedulable", []corev1.Taint{custom}, ready, true, []corev1.Taint{custom, unsched}},
		{"uncordon removes it", []corev1.Taint{unsched, custom}, ready, false, []corev1.Taint{custom}},
		{"NoExecute taints are not ours", []corev1.Taint{notReadyExecute}, ready, false, []corev1.Taint{notReadyExecute}},
		{"memory pressure", nil, append([]corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionTrue}}, ready...), false,
			[]corev1.Taint{{Key: corev1.TaintNodeMemoryPressure, Effect: corev1.TaintEffectNoSchedule}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := &corev1.Node{Spec: corev1.NodeSpec{Taints: tc.taints, Unschedulable: tc.unschedulable}, Status: corev1.NodeStatus{Conditions: tc.conds}}
			if got := WantTaints(n); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("WantTaints = %v, want %v", got, tc.want)
			}
		})
	}
}
