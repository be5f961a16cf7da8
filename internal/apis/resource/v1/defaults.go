package v1

import (
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RegisterDefaults adds the defaulting functions of the resource.k8s.io/v1
// kinds whose nested fields upstream defaults: device requests in claims
// and claim templates, and device taints in resource slices.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&resourcev1.ResourceClaim{}, func(obj any) {
		SetDefaultsDeviceClaim(&obj.(*resourcev1.ResourceClaim).Spec.Devices)
	})
	scheme.AddTypeDefaultingFunc(&resourcev1.ResourceClaimList{}, func(obj any) {
		for i := range obj.(*resourcev1.ResourceClaimList).Items {
			SetDefaultsDeviceClaim(&obj.(*resourcev1.ResourceClaimList).Items[i].Spec.Devices)
		}
	})
	scheme.AddTypeDefaultingFunc(&resourcev1.ResourceClaimTemplate{}, func(obj any) {
		SetDefaultsDeviceClaim(&obj.(*resourcev1.ResourceClaimTemplate).Spec.Spec.Devices)
	})
	scheme.AddTypeDefaultingFunc(&resourcev1.ResourceClaimTemplateList{}, func(obj any) {
		for i := range obj.(*resourcev1.ResourceClaimTemplateList).Items {
			SetDefaultsDeviceClaim(&obj.(*resourcev1.ResourceClaimTemplateList).Items[i].Spec.Spec.Devices)
		}
	})
	scheme.AddTypeDefaultingFunc(&resourcev1.ResourceSlice{}, func(obj any) {
		SetDefaultsResourceSliceSpec(&obj.(*resourcev1.ResourceSlice).Spec)
	})
	scheme.AddTypeDefaultingFunc(&resourcev1.ResourceSliceList{}, func(obj any) {
		for i := range obj.(*resourcev1.ResourceSliceList).Items {
			SetDefaultsResourceSliceSpec(&obj.(*resourcev1.ResourceSliceList).Items[i].Spec)
		}
	})
	return nil
}

// SetDefaultsDeviceClaim defaults every request of a claim: exactly one
// device of the class unless asked otherwise, and Equal tolerations.
func SetDefaultsDeviceClaim(claim *resourcev1.DeviceClaim) {
	for i := range claim.Requests {
		r := &claim.Requests[i]
		if r.Exactly != nil {
			defaultAllocation(&r.Exactly.AllocationMode, &r.Exactly.Count)
			defaultTolerations(r.Exactly.Tolerations)
		}
		for j := range r.FirstAvailable {
			sub := &r.FirstAvailable[j]
			defaultAllocation(&sub.AllocationMode, &sub.Count)
			defaultTolerations(sub.Tolerations)
		}
	}
}

func defaultAllocation(mode *resourcev1.DeviceAllocationMode, count *int64) {
	if *mode == "" {
		*mode = resourcev1.DeviceAllocationModeExactCount
	}
	if *mode == resourcev1.DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}

func defaultTolerations(tolerations []resourcev1.DeviceToleration) {
	for i := range tolerations {
		if tolerations[i].Operator == "" {
			tolerations[i].Operator = resourcev1.DeviceTolerationOpEqual
		}
	}
}

// SetDefaultsResourceSliceSpec stamps device taints without a time with
// the current second, as upstream does.
func SetDefaultsResourceSliceSpec(spec *resourcev1.ResourceSliceSpec) {
	for i := range spec.Devices {
		for j := range spec.Devices[i].Taints {
			if t := &spec.Devices[i].Taints[j]; t.TimeAdded == nil {
				t.TimeAdded = &metav1.Time{Time: time.Now().Truncate(time.Second)}
			}
		}
	}
}
