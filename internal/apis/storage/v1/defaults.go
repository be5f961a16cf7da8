package v1

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// RegisterDefaults adds the defaulting functions of the storage.k8s.io/v1
// kinds that upstream defaults, and of their lists item by item.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&storagev1.StorageClass{}, func(obj any) { SetDefaultsStorageClass(obj.(*storagev1.StorageClass)) })
	scheme.AddTypeDefaultingFunc(&storagev1.StorageClassList{}, func(obj any) {
		for i := range obj.(*storagev1.StorageClassList).Items {
			SetDefaultsStorageClass(&obj.(*storagev1.StorageClassList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&storagev1.CSIDriver{}, func(obj any) { SetDefaultsCSIDriver(obj.(*storagev1.CSIDriver)) })
	scheme.AddTypeDefaultingFunc(&storagev1.CSIDriverList{}, func(obj any) {
		for i := range obj.(*storagev1.CSIDriverList).Items {
			SetDefaultsCSIDriver(&obj.(*storagev1.CSIDriverList).Items[i])
		}
	})
	return nil
}

// SetDefaultsStorageClass makes volumes of the class deleted with their
// claim and bound at once, unless the class says otherwise.
func SetDefaultsStorageClass(sc *storagev1.StorageClass) {
	if sc.ReclaimPolicy == nil {
		sc.ReclaimPolicy = ptr.To(corev1.PersistentVolumeReclaimDelete)
	}
	if sc.VolumeBindingMode == nil {
		sc.VolumeBindingMode = ptr.To(storagev1.VolumeBindingImmediate)
	}
}

// SetDefaultsCSIDriver fills the optional CSIDriver spec fields with the
// behaviour a driver had before each field existed.
func SetDefaultsCSIDriver(d *storagev1.CSIDriver) {
	s := &d.Spec
	if s.AttachRequired == nil {
		s.AttachRequired = ptr.To(true)
	}
	if s.PodInfoOnMount == nil {
		s.PodInfoOnMount = ptr.To(false)
	}
	if s.StorageCapacity == nil {
		s.StorageCapacity = ptr.To(false)
	}
	if s.FSGroupPolicy == nil {
		s.FSGroupPolicy = ptr.To(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
	}
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
	if s.RequiresRepublish == nil {
		s.RequiresRepublish = ptr.To(false)
	}
	if s.SELinuxMount == nil {
		s.SELinuxMount = ptr.To(false)
	}
}
