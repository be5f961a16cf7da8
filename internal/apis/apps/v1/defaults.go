package v1

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	kapicorev1 "github.com/kapi-dev/kapi/internal/apis/core/v1"
)

// RegisterDefaults adds the defaulting functions of the apps/v1 kinds,
// and of their lists item by item, to scheme. ControllerRevisions have no
// defaults.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&appsv1.Deployment{}, func(obj any) { SetDefaultsDeployment(obj.(*appsv1.Deployment)) })
	scheme.AddTypeDefaultingFunc(&appsv1.DeploymentList{}, func(obj any) {
		for i := range obj.(*appsv1.DeploymentList).Items {
			SetDefaultsDeployment(&obj.(*appsv1.DeploymentList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&appsv1.ReplicaSet{}, func(obj any) { SetDefaultsReplicaSet(obj.(*appsv1.ReplicaSet)) })
	scheme.AddTypeDefaultingFunc(&appsv1.ReplicaSetList{}, func(obj any) {
		for i := range obj.(*appsv1.ReplicaSetList).Items {
			SetDefaultsReplicaSet(&obj.(*appsv1.ReplicaSetList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&appsv1.StatefulSet{}, func(obj any) { SetDefaultsStatefulSet(obj.(*appsv1.StatefulSet)) })
	scheme.AddTypeDefaultingFunc(&appsv1.StatefulSetList{}, func(obj any) {
		for i := range obj.(*appsv1.StatefulSetList).Items {
			SetDefaultsStatefulSet(&obj.(*appsv1.StatefulSetList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&appsv1.DaemonSet{}, func(obj any) { SetDefaultsDaemonSet(obj.(*appsv1.DaemonSet)) })
	scheme.AddTypeDefaultingFunc(&appsv1.DaemonSetList{}, func(obj any) {
		for i := range obj.(*appsv1.DaemonSetList).Items {
			SetDefaultsDaemonSet(&obj.(*appsv1.DaemonSetList).Items[i])
		}
	})
	return nil
}

// SetDefaultsDeployment: 1 replica, a RollingUpdate strategy with 25%
// maxUnavailable and maxSurge, 10 old revisions kept, a 600s progress
// deadline, and the pod template's defaults.
func SetDefaultsDeployment(d *appsv1.Deployment) {
	if d.Spec.Replicas == nil {
		d.Spec.Replicas = ptr.To[int32](1)
	}
	strategy := &d.Spec.Strategy
	if strategy.Type == "" {
		strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if strategy.RollingUpdate == nil {
			strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		if strategy.RollingUpdate.MaxUnavailable == nil {
			strategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromString("25%"))
		}
		if strategy.RollingUpdate.MaxSurge == nil {
			strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("25%"))
		}
	}
	if d.Spec.RevisionHistoryLimit == nil {
		d.Spec.RevisionHistoryLimit = ptr.To[int32](10)
	}
	if d.Spec.ProgressDeadlineSeconds == nil {
		d.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
	}
	kapicorev1.SetDefaultsPodTemplateSpec(&d.Spec.Template)
}

// SetDefaultsReplicaSet: 1 replica and the pod template's defaults.
func SetDefaultsReplicaSet(rs *appsv1.ReplicaSet) {
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = ptr.To[int32](1)
	}
	kapicorev1.SetDefaultsPodTemplateSpec(&rs.Spec.Template)
}

// SetDefaultsStatefulSet: OrderedReady pods, a RollingUpdate strategy
// with partition 0 (the rollingUpdate block is only added when the type
// was empty, as upstream does), PVCs retained on delete and scale-down, 1
// replica, 10 old revisions kept, and the defaults of the pod template and
// of each volume claim template. maxUnavailable is left unset: upstream
// defaults it only behind the MaxUnavailableStatefulSet feature gate.
func SetDefaultsStatefulSet(ss *appsv1.StatefulSet) {
	spec := &ss.Spec
	if spec.PodManagementPolicy == "" {
		spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if spec.UpdateStrategy.Type == "" {
		spec.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if spec.UpdateStrategy.RollingUpdate == nil {
			spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && spec.UpdateStrategy.RollingUpdate != nil &&
		spec.UpdateStrategy.RollingUpdate.Partition == nil {
		spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](0)
	}
	if spec.PersistentVolumeClaimRetentionPolicy == nil {
		spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if spec.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		spec.PersistentVolumeClaimRetentionPolicy.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if spec.Replicas == nil {
		spec.Replicas = ptr.To[int32](1)
	}
	if spec.RevisionHistoryLimit == nil {
		spec.RevisionHistoryLimit = ptr.To[int32](10)
	}
	kapicorev1.SetDefaultsPodTemplateSpec(&spec.Template)
	for i := range spec.VolumeClaimTemplates {
		setDefaultsClaimTemplate(&spec.VolumeClaimTemplates[i])
	}
}

// setDefaultsClaimTemplate gives a volume claim template the defaults of
// a PersistentVolumeClaim (phase Pending, volumeMode Filesystem) and the
// v1 PersistentVolumeClaim apiVersion and kind, which kube-apiserver's
// conversions write into every stateful set it returns. Defaulting runs on
// every decode, storage reads included, so clients always see them.
func setDefaultsClaimTemplate(pvc *corev1.PersistentVolumeClaim) {
	pvc.APIVersion, pvc.Kind = "v1", "PersistentVolumeClaim"
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = corev1.ClaimPending
	}
	if pvc.Spec.VolumeMode == nil {
		pvc.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
}

// SetDefaultsDaemonSet: a RollingUpdate strategy with maxUnavailable 1
// and maxSurge 0, 10 old revisions kept, and the pod template's defaults.
func SetDefaultsDaemonSet(ds *appsv1.DaemonSet) {
	strategy := &ds.Spec.UpdateStrategy
	if strategy.Type == "" {
		strategy.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if strategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if strategy.RollingUpdate == nil {
			strategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if strategy.RollingUpdate.MaxUnavailable == nil {
			strategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}
		if strategy.RollingUpdate.MaxSurge == nil {
			strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
		}
	}
	if ds.Spec.RevisionHistoryLimit == nil {
		ds.Spec.RevisionHistoryLimit = ptr.To[int32](10)
	}
	kapicorev1.SetDefaultsPodTemplateSpec(&ds.Spec.Template)
}
