package v1

import (
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RegisterDefaults adds the defaulting functions of the scheduling.k8s.io/v1
// types to scheme, for PriorityClass and its list.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&schedulingv1.PriorityClass{}, func(obj any) {
		SetDefaultsPriorityClass(obj.(*schedulingv1.PriorityClass))
	})
	scheme.AddTypeDefaultingFunc(&schedulingv1.PriorityClassList{}, func(obj any) {
		for i := range obj.(*schedulingv1.PriorityClassList).Items {
			SetDefaultsPriorityClass(&obj.(*schedulingv1.PriorityClassList).Items[i])
		}
	})
	return nil
}

// SetDefaultsPriorityClass lets pods of the class preempt lower-priority
// pods unless the class says otherwise.
func SetDefaultsPriorityClass(pc *schedulingv1.PriorityClass) {
	if pc.PreemptionPolicy == nil {
		policy := corev1.PreemptLowerPriority
		pc.PreemptionPolicy = &policy
	}
}
