package v1

import corev1 "k8s.io/api/core/v1"

// SetDefaultsPodSpec fills the defaults of a pod spec, shared by pods and
// every pod template (podtemplates, replication controllers, deployments,
// jobs, ...).
func SetDefaultsPodSpec(spec *corev1.PodSpec) {
	_ = spec
}

// SetDefaultsPodTemplateSpec fills the defaults of a pod template.
func SetDefaultsPodTemplateSpec(template *corev1.PodTemplateSpec) {
	SetDefaultsPodSpec(&template.Spec)
}

// SetDefaultsPod fills the defaults of a pod: its spec's and the ones
// only pods get.
func SetDefaultsPod(pod *corev1.Pod) {
	SetDefaultsPodSpec(&pod.Spec)
}
