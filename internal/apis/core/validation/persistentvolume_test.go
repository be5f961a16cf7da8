package validation

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func validPV() *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pv1"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{"storage": resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			VolumeMode:                    ptr.To(corev1.PersistentVolumeFilesystem),
		},
	}
}

func TestValidatePersistentVolume(t *testing.T) {
	pv := func(mutate func(*corev1.PersistentVolume)) *corev1.PersistentVolume {
		v := validPV()
		mutate(v)
		return v
	}
	tests := []struct {
		name string
		pv   *corev1.PersistentVolume
		want []string
	}{
		{"valid", pv(func(*corev1.PersistentVolume) {}), nil},
		{"no capacity", pv(func(v *corev1.PersistentVolume) { v.Spec.Capacity = nil }),
			[]string{"spec.capacity: Required value: ", `spec.capacity: Unsupported value: supported values: "storage"`}},
		{"zero capacity", pv(func(v *corev1.PersistentVolume) { v.Spec.Capacity["storage"] = resource.MustParse("0") }),
			[]string{"spec.capacity[storage]: Invalid value: must be greater than zero"}},
		{"no access modes", pv(func(v *corev1.PersistentVolume) { v.Spec.AccessModes = nil }),
			[]string{"spec.accessModes: Required value: "}},
		{"unknown access mode", pv(func(v *corev1.PersistentVolume) {
			v.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{"ReadSometimes"}
		}),
			[]string{`spec.accessModes: Unsupported value: supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`}},
		{"rwop with others", pv(func(v *corev1.PersistentVolume) {
			v.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod, corev1.ReadOnlyMany}
		}), []string{"spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"}},
		{"no volume type", pv(func(v *corev1.PersistentVolume) { v.Spec.HostPath = nil }),
			[]string{"spec: Required value: must specify a volume type"}},
		{"two volume types", pv(func(v *corev1.PersistentVolume) { v.Spec.NFS = &corev1.NFSVolumeSource{Server: "s", Path: "/p"} }),
			[]string{"spec.nfs: Forbidden: may not specify more than 1 volume type"}},
		{"reclaim policy", pv(func(v *corev1.PersistentVolume) { v.Spec.PersistentVolumeReclaimPolicy = "Keep" }),
			[]string{`spec.persistentVolumeReclaimPolicy: Unsupported value: supported values: "Delete", "Recycle", "Retain"`}},
		{"recycle root", pv(func(v *corev1.PersistentVolume) {
			v.Spec.HostPath.Path = "/"
			v.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRecycle
		}), []string{"spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"}},
		{"local needs node affinity", pv(func(v *corev1.PersistentVolume) {
			v.Spec.HostPath = nil
			v.Spec.Local = &corev1.LocalVolumeSource{Path: "/mnt/disk"}
		}), []string{"spec.nodeAffinity: Required value: Local volume requires node affinity"}},
		{"nfs fields", pv(func(v *corev1.PersistentVolume) {
			v.Spec.HostPath = nil
			v.Spec.NFS = &corev1.NFSVolumeSource{Path: "rel"}
		}), []string{"spec.nfs.server: Required value: ", "spec.nfs.path: Invalid value: must be an absolute path"}},
		{"csi fields", pv(func(v *corev1.PersistentVolume) {
			v.Spec.HostPath = nil
			v.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: "csi.example.com"}
		}), []string{"spec.csi.volumeHandle: Required value: "}},
		{"volume mode", pv(func(v *corev1.PersistentVolume) { v.Spec.VolumeMode = ptr.To[corev1.PersistentVolumeMode]("Raw") }),
			[]string{`spec.volumeMode: Unsupported value: supported values: "Block", "Filesystem"`}},
		{"storage class", pv(func(v *corev1.PersistentVolume) { v.Spec.StorageClassName = "Fast" }),
			[]string{"spec.storageClassName: Invalid value: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}},
	}
	for _, tt := range tests {
		checkErrors(t, tt.name, ValidatePersistentVolume(tt.pv), tt.want)
	}
}

func TestValidatePersistentVolumeUpdate(t *testing.T) {
	old := validPV()
	old.ResourceVersion = "1"
	source := old.DeepCopy()
	source.Spec.HostPath.Path = "/other"
	errs := ValidatePersistentVolumeUpdate(source, old)
	if len(errs) != 1 || errs[0].Field != "spec.persistentvolumesource" || !strings.HasPrefix(errs[0].Detail, "spec.persistentvolumesource is immutable after creation\n") {
		t.Errorf("source change: %v", errs)
	}
	mode := old.DeepCopy()
	mode.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeBlock)
	checkErrors(t, "volume mode", ValidatePersistentVolumeUpdate(mode, old), []string{"volumeMode: Invalid value: field is immutable"})
	grow := old.DeepCopy()
	grow.Spec.Capacity["storage"] = resource.MustParse("2Gi")
	grow.Spec.ClaimRef = &corev1.ObjectReference{Namespace: "ns", Name: "c"}
	checkErrors(t, "capacity and claim", ValidatePersistentVolumeUpdate(grow, old), nil)
}
