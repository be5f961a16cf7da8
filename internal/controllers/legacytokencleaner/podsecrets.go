package legacytokencleaner

import corev1 "k8s.io/api/core/v1"

// visitPodSecretNames calls visit with every Secret a pod refers to:
// image pull secrets, environment, and volumes.
func visitPodSecretNames(pod *corev1.Pod, visit func(string)) {
	for _, r := range pod.Spec.ImagePullSecrets {
		visit(r.Name)
	}
	containers := append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...)
	for _, e := range pod.Spec.EphemeralContainers {
		containers = append(containers, corev1.Container{Env: e.Env, EnvFrom: e.EnvFrom})
	}
	for _, c := range containers {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				visit(e.SecretRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				visit(e.ValueFrom.SecretKeyRef.Name)
			}
		}
	}
	for _, v := range pod.Spec.Volumes {
		visitVolumeSecretNames(&v.VolumeSource, visit)
	}
}

func visitVolumeSecretNames(v *corev1.VolumeSource, visit func(string)) {
	ref := func(r *corev1.LocalObjectReference) {
		if r != nil {
			visit(r.Name)
		}
	}
	switch {
	case v.Secret != nil:
		visit(v.Secret.SecretName)
	case v.Projected != nil:
		for _, s := range v.Projected.Sources {
			if s.Secret != nil {
				visit(s.Secret.Name)
			}
		}
	case v.CSI != nil:
		ref(v.CSI.NodePublishSecretRef)
	case v.FlexVolume != nil:
		ref(v.FlexVolume.SecretRef)
	case v.CephFS != nil:
		ref(v.CephFS.SecretRef)
	case v.RBD != nil:
		ref(v.RBD.SecretRef)
	case v.ISCSI != nil:
		ref(v.ISCSI.SecretRef)
	case v.ScaleIO != nil:
		ref(v.ScaleIO.SecretRef)
	case v.StorageOS != nil:
		ref(v.StorageOS.SecretRef)
	case v.AzureFile != nil:
		visit(v.AzureFile.SecretName)
	}
}
