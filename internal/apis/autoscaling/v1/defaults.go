package v1

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// RegisterDefaults adds the defaulting of autoscaling/v1 HPAs (and their
// lists) to scheme. The v2 defaults apply too once a v1 body is converted
// to the storage version.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&autoscalingv1.HorizontalPodAutoscaler{}, func(obj any) {
		SetDefaultsHorizontalPodAutoscaler(obj.(*autoscalingv1.HorizontalPodAutoscaler))
	})
	scheme.AddTypeDefaultingFunc(&autoscalingv1.HorizontalPodAutoscalerList{}, func(obj any) {
		list := obj.(*autoscalingv1.HorizontalPodAutoscalerList)
		for i := range list.Items {
			SetDefaultsHorizontalPodAutoscaler(&list.Items[i])
		}
	})
	return nil
}

// SetDefaultsHorizontalPodAutoscaler makes minReplicas 1 when unset.
func SetDefaultsHorizontalPodAutoscaler(hpa *autoscalingv1.HorizontalPodAutoscaler) {
	if hpa.Spec.MinReplicas == nil {
		hpa.Spec.MinReplicas = ptr.To[int32](1)
	}
}
