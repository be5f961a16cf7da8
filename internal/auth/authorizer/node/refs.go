package node

import (
	corev1 "k8s.io/api/core/v1"
)

// PodSecretNames calls visit with the name of every secret pod refers to:
// image pull secrets, env and envFrom of every container, and volumes. It
// stops when visit returns false.
func PodSecretNames(pod *corev1.Pod, visit func(name string) bool) {
	for _, s := range pod.Spec.ImagePullSecrets {
		if !visit(s.Name) {
			return
		}
	}
	if !visitContainerRefs(pod, func(e *corev1.EnvFromSource) string {
		if e.SecretRef != nil {
			return e.SecretRef.Name
		}
		return ""
	}, func(v *corev1.EnvVarSource) string {
		if v.SecretKeyRef != nil {
			return v.SecretKeyRef.Name
		}
		return ""
	}, visit) {
		return
	}
	for i := range pod.Spec.Volumes {
		for _, name := range volumeSecretNames(&pod.Spec.Volumes[i].VolumeSource) {
			if name != "" && !visit(name) {
				return
			}
		}
	}
}

// volumeSecretNames lists the secrets a pod volume source names.
func volumeSecretNames(v *corev1.VolumeSource) []string {
	ref := func(r *corev1.LocalObjectReference) string {
		if r == nil {
			return ""
		}
		return r.Name
	}
	var out []string
	switch {
	case v.Secret != nil:
		out = append(out, v.Secret.SecretName)
	case v.Projected != nil:
		for _, s := range v.Projected.Sources {
			if s.Secret != nil {
				out = append(out, s.Secret.Name)
			}
		}
	case v.AzureFile != nil:
		out = append(out, v.AzureFile.SecretName)
	case v.CephFS != nil:
		out = append(out, ref(v.CephFS.SecretRef))
	case v.Cinder != nil:
		out = append(out, ref(v.Cinder.SecretRef))
	case v.FlexVolume != nil:
		out = append(out, ref(v.FlexVolume.SecretRef))
	case v.RBD != nil:
		out = append(out, ref(v.RBD.SecretRef))
	case v.ScaleIO != nil:
		out = append(out, ref(v.ScaleIO.SecretRef))
	case v.ISCSI != nil:
		out = append(out, ref(v.ISCSI.SecretRef))
	case v.StorageOS != nil:
		out = append(out, ref(v.StorageOS.SecretRef))
	case v.CSI != nil:
		out = append(out, ref(v.CSI.NodePublishSecretRef))
	}
	return out
}

// PodConfigMapNames calls visit with the name of every config map pod
// refers to, until visit returns false.
func PodConfigMapNames(pod *corev1.Pod, visit func(name string) bool) {
	if !visitContainerRefs(pod, func(e *corev1.EnvFromSource) string {
		if e.ConfigMapRef != nil {
			return e.ConfigMapRef.Name
		}
		return ""
	}, func(v *corev1.EnvVarSource) string {
		if v.ConfigMapKeyRef != nil {
			return v.ConfigMapKeyRef.Name
		}
		return ""
	}, visit) {
		return
	}
	for _, vol := range pod.Spec.Volumes {
		switch {
		case vol.ConfigMap != nil:
			if !visit(vol.ConfigMap.Name) {
				return
			}
		case vol.Projected != nil:
			for _, s := range vol.Projected.Sources {
				if s.ConfigMap != nil && !visit(s.ConfigMap.Name) {
					return
				}
			}
		}
	}
}

// visitContainerRefs walks env and envFrom of init, regular and ephemeral
// containers; it returns false when visit stopped it.
func visitContainerRefs(pod *corev1.Pod, fromSource func(*corev1.EnvFromSource) string, fromVar func(*corev1.EnvVarSource) string, visit func(string) bool) bool {
	check := func(envFrom []corev1.EnvFromSource, env []corev1.EnvVar) bool {
		for i := range envFrom {
			if n := fromSource(&envFrom[i]); n != "" && !visit(n) {
				return false
			}
		}
		for i := range env {
			if env[i].ValueFrom == nil {
				continue
			}
			if n := fromVar(env[i].ValueFrom); n != "" && !visit(n) {
				return false
			}
		}
		return true
	}
	for _, c := range pod.Spec.InitContainers {
		if !check(c.EnvFrom, c.Env) {
			return false
		}
	}
	for _, c := range pod.Spec.Containers {
		if !check(c.EnvFrom, c.Env) {
			return false
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if !check(c.EnvFrom, c.Env) {
			return false
		}
	}
	return true
}

// podClaimNames lists the persistent volume claims a pod mounts, including
// the claims of its generic ephemeral volumes (named <pod>-<volume>).
func podClaimNames(pod *corev1.Pod) []string {
	var out []string
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil:
			out = append(out, pod.Name+"-"+v.Name)
		}
	}
	return out
}

// podResourceClaimNames lists the ResourceClaims a pod uses, as allocated
// (status) or named directly (spec).
func podResourceClaimNames(pod *corev1.Pod) []string {
	var out []string
	for _, s := range pod.Status.ResourceClaimStatuses {
		if s.ResourceClaimName != nil {
			out = append(out, *s.ResourceClaimName)
		}
	}
	for _, c := range pod.Spec.ResourceClaims {
		if c.ResourceClaimName != nil {
			out = append(out, *c.ResourceClaimName)
		}
	}
	return out
}

// pvSecretRefs lists the secrets a persistent volume names for mounting.
func pvSecretRefs(pv *corev1.PersistentVolume) []*corev1.SecretReference {
	var out []*corev1.SecretReference
	s := pv.Spec.PersistentVolumeSource
	if s.CSI != nil {
		out = append(out, s.CSI.NodePublishSecretRef, s.CSI.NodeStageSecretRef, s.CSI.NodeExpandSecretRef)
	}
	if s.CephFS != nil {
		out = append(out, s.CephFS.SecretRef)
	}
	if s.RBD != nil {
		out = append(out, s.RBD.SecretRef)
	}
	if s.ISCSI != nil {
		out = append(out, s.ISCSI.SecretRef)
	}
	if s.FlexVolume != nil {
		out = append(out, s.FlexVolume.SecretRef)
	}
	return out
}
