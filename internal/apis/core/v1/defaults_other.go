package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// registerOtherDefaults adds the defaults of nodes, persistent volumes and
// claims, limit ranges, resource quotas and replication controllers, each
// for the kind and its list.
func registerOtherDefaults(scheme *runtime.Scheme) {
	addKindDefaults(scheme, SetDefaultsNode, func(l *corev1.NodeList) []corev1.Node { return l.Items })
	addKindDefaults(scheme, SetDefaultsPersistentVolume, func(l *corev1.PersistentVolumeList) []corev1.PersistentVolume { return l.Items })
	addKindDefaults(scheme, SetDefaultsPersistentVolumeClaim, func(l *corev1.PersistentVolumeClaimList) []corev1.PersistentVolumeClaim { return l.Items })
	addKindDefaults(scheme, SetDefaultsLimitRange, func(l *corev1.LimitRangeList) []corev1.LimitRange { return l.Items })
	addKindDefaults(scheme, SetDefaultsResourceQuota, func(l *corev1.ResourceQuotaList) []corev1.ResourceQuota { return l.Items })
	addKindDefaults(scheme, SetDefaultsReplicationController, func(l *corev1.ReplicationControllerList) []corev1.ReplicationController { return l.Items })
}

// addKindDefaults registers set for *T and for every item of its list L.
func addKindDefaults[T any, L any, PT interface {
	*T
	runtime.Object
}, PL interface {
	*L
	runtime.Object
}](scheme *runtime.Scheme, set func(PT), items func(PL) []T) {
	scheme.AddTypeDefaultingFunc(PT(new(T)), func(obj any) { set(obj.(PT)) })
	scheme.AddTypeDefaultingFunc(PL(new(L)), func(obj any) {
		list := items(obj.(PL))
		for i := range list {
			set(PT(&list[i]))
		}
	})
}

// roundResourceList rounds every quantity up to milli precision, as
// upstream's defaulting does for each ResourceList it meets.
func roundResourceList(list corev1.ResourceList) {
	for name, q := range list {
		q.RoundUp(-3)
		list[name] = q
	}
}

// SetDefaultsNode keeps podCIDR and podCIDRs in step (podCIDR wins when
// they disagree, as upstream's conversion decides), defaults allocatable
// to capacity and rounds the quantities.
func SetDefaultsNode(node *corev1.Node) {
	spec := &node.Spec
	switch {
	case spec.PodCIDR != "" && (len(spec.PodCIDRs) == 0 || spec.PodCIDRs[0] != spec.PodCIDR):
		spec.PodCIDRs = []string{spec.PodCIDR}
	case spec.PodCIDR == "" && len(spec.PodCIDRs) > 0:
		spec.PodCIDR = spec.PodCIDRs[0]
	}
	status := &node.Status
	roundResourceList(status.Capacity)
	roundResourceList(status.Allocatable)
	if status.Allocatable == nil && status.Capacity != nil {
		status.Allocatable = make(corev1.ResourceList, len(status.Capacity))
		for name, q := range status.Capacity {
			status.Allocatable[name] = q.DeepCopy()
		}
	}
}

// SetDefaultsPersistentVolume makes a new volume Pending, Retain and
// Filesystem, and fills the defaults of its volume source.
func SetDefaultsPersistentVolume(pv *corev1.PersistentVolume) {
	if pv.Status.Phase == "" {
		pv.Status.Phase = corev1.VolumePending
	}
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		pv.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
	roundResourceList(pv.Spec.Capacity)
	setDefaultsPersistentVolumeSource(&pv.Spec.PersistentVolumeSource)
}

// setDefaultsPersistentVolumeSource fills the per-plugin defaults upstream
// gives the volume types still in use.
func setDefaultsPersistentVolumeSource(src *corev1.PersistentVolumeSource) {
	if src.HostPath != nil && src.HostPath.Type == nil {
		src.HostPath.Type = ptr.To(corev1.HostPathUnset)
	}
	if src.ISCSI != nil && src.ISCSI.ISCSIInterface == "" {
		src.ISCSI.ISCSIInterface = "default"
	}
	if rbd := src.RBD; rbd != nil {
		if rbd.RBDPool == "" {
			rbd.RBDPool = "rbd"
		}
		if rbd.RadosUser == "" {
			rbd.RadosUser = "admin"
		}
		if rbd.Keyring == "" {
			rbd.Keyring = "/etc/ceph/keyring"
		}
	}
	if disk := src.AzureDisk; disk != nil {
		if disk.CachingMode == nil {
			disk.CachingMode = ptr.To(corev1.AzureDataDiskCachingReadWrite)
		}
		if disk.Kind == nil {
			disk.Kind = ptr.To(corev1.AzureSharedBlobDisk)
		}
		if disk.FSType == nil {
			disk.FSType = ptr.To("ext4")
		}
		if disk.ReadOnly == nil {
			disk.ReadOnly = ptr.To(false)
		}
	}
	if sio := src.ScaleIO; sio != nil {
		if sio.StorageMode == "" {
			sio.StorageMode = "ThinProvisioned"
		}
		if sio.FSType == "" {
			sio.FSType = "xfs"
		}
	}
}

// SetDefaultsPersistentVolumeClaim makes a new claim Pending with a
// Filesystem volume mode.
func SetDefaultsPersistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) {
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = corev1.ClaimPending
	}
	SetDefaultsPersistentVolumeClaimSpec(&pvc.Spec)
	roundResourceList(pvc.Status.Capacity)
	roundResourceList(pvc.Status.AllocatedResources)
}

// SetDefaultsPersistentVolumeClaimSpec defaults volumeMode to Filesystem;
// claim templates (statefulsets, ephemeral volumes) share it.
func SetDefaultsPersistentVolumeClaimSpec(spec *corev1.PersistentVolumeClaimSpec) {
	if spec.VolumeMode == nil {
		spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
	roundResourceList(spec.Resources.Limits)
	roundResourceList(spec.Resources.Requests)
}

// SetDefaultsLimitRange fills container limit defaults: default from max,
// defaultRequest from default, then from min.
func SetDefaultsLimitRange(lr *corev1.LimitRange) {
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		for _, list := range []corev1.ResourceList{item.Max, item.Min, item.Default, item.DefaultRequest, item.MaxLimitRequestRatio} {
			roundResourceList(list)
		}
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		if item.Default == nil {
			item.Default = corev1.ResourceList{}
		}
		if item.DefaultRequest == nil {
			item.DefaultRequest = corev1.ResourceList{}
		}
		copyMissing(item.Default, item.Max)
		copyMissing(item.DefaultRequest, item.Default)
		copyMissing(item.DefaultRequest, item.Min)
	}
}

// copyMissing copies into dst the quantities of src it lacks.
func copyMissing(dst, src corev1.ResourceList) {
	for name, q := range src {
		if _, ok := dst[name]; !ok {
			dst[name] = q.DeepCopy()
		}
	}
}

// SetDefaultsResourceQuota rounds the quantities of a quota.
func SetDefaultsResourceQuota(q *corev1.ResourceQuota) {
	roundResourceList(q.Spec.Hard)
	roundResourceList(q.Status.Hard)
	roundResourceList(q.Status.Used)
}

// SetDefaultsReplicationController defaults the selector and the labels
// to the template's labels, replicas to 1, and the template's pod spec.
func SetDefaultsReplicationController(rc *corev1.ReplicationController) {
	if rc.Spec.Template != nil && rc.Spec.Template.Labels != nil {
		if len(rc.Spec.Selector) == 0 {
			rc.Spec.Selector = rc.Spec.Template.Labels
		}
		if len(rc.Labels) == 0 {
			rc.Labels = rc.Spec.Template.Labels
		}
	}
	if rc.Spec.Replicas == nil {
		rc.Spec.Replicas = ptr.To[int32](1)
	}
	if rc.Spec.Template != nil {
		SetDefaultsPodTemplateSpec(rc.Spec.Template)
	}
}
