package validation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// podEnvFieldPaths are the pod fields an env var may read through
// fieldRef; labels and annotations need a subscript.
var podEnvFieldPaths = sets.New(
	"metadata.name", "metadata.namespace", "metadata.uid",
	"spec.nodeName", "spec.serviceAccountName",
	"status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
)

// podVolumeFieldPaths are the pod fields a downwardAPI volume file may
// hold.
var podVolumeFieldPaths = sets.New(
	"metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
)

// podResourceFieldRefs are the container resources a resourceFieldRef may
// read (hugepages-* too).
var podResourceFieldRefs = sets.New(
	"limits.cpu", "limits.memory", "limits.ephemeral-storage",
	"requests.cpu", "requests.memory", "requests.ephemeral-storage",
)

// validatePodEnv checks env var names (any printable ASCII but '=') and
// their valueFrom sources.
func validatePodEnv(vars []corev1.EnvVar, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, ev := range vars {
		path := fldPath.Index(i)
		if ev.Name == "" {
			allErrs = append(allErrs, field.Required(path.Child("name"), ""))
		} else {
			for _, msg := range utilvalidation.IsRelaxedEnvVarName(ev.Name) {
				allErrs = append(allErrs, field.Invalid(path.Child("name"), ev.Name, msg))
			}
		}
		allErrs = append(allErrs, validatePodEnvValueFrom(ev, path.Child("valueFrom"))...)
	}
	return allErrs
}

func validatePodEnvValueFrom(ev corev1.EnvVar, fldPath *field.Path) field.ErrorList {
	from := ev.ValueFrom
	if from == nil {
		return nil
	}
	var allErrs field.ErrorList
	sources := 0
	if from.FieldRef != nil {
		sources++
		allErrs = append(allErrs, validatePodFieldRef(from.FieldRef, podEnvFieldPaths, fldPath.Child("fieldRef"))...)
	}
	if from.ResourceFieldRef != nil {
		sources++
		allErrs = append(allErrs, validatePodResourceFieldRef(from.ResourceFieldRef, fldPath.Child("resourceFieldRef"))...)
	}
	if from.ConfigMapKeyRef != nil {
		sources++
		allErrs = append(allErrs, validatePodKeySelector(from.ConfigMapKeyRef.Name, from.ConfigMapKeyRef.Key, fldPath.Child("configMapKeyRef"))...)
	}
	if from.SecretKeyRef != nil {
		sources++
		allErrs = append(allErrs, validatePodKeySelector(from.SecretKeyRef.Name, from.SecretKeyRef.Key, fldPath.Child("secretKeyRef"))...)
	}
	if from.FileKeyRef != nil {
		sources++
		if from.FileKeyRef.VolumeName == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("fileKeyRef", "volumeName"), ""))
		}
		if from.FileKeyRef.Path == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("fileKeyRef", "path"), ""))
		}
		if from.FileKeyRef.Key == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("fileKeyRef", "key"), ""))
		}
	}
	switch {
	case sources == 0:
		allErrs = append(allErrs, field.Invalid(fldPath, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
	case ev.Value != "":
		allErrs = append(allErrs, field.Invalid(fldPath, "", "may not be specified when `value` is not empty"))
	case sources > 1:
		allErrs = append(allErrs, field.Invalid(fldPath, "", "may not have more than one field specified at a time"))
	}
	return allErrs
}

// validatePodKeySelector checks a configMapKeyRef or secretKeyRef.
func validatePodKeySelector(name, key string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if name == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
	}
	if key == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("key"), ""))
	} else {
		for _, msg := range utilvalidation.IsConfigMapKey(key) {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("key"), key, msg))
		}
	}
	return allErrs
}

// validatePodFieldRef checks a downward API field: v1 only, one of the
// supported paths, or labels/annotations with a subscript.
func validatePodFieldRef(fs *corev1.ObjectFieldSelector, supported sets.Set[string], fldPath *field.Path) field.ErrorList {
	if fs.APIVersion == "" {
		return field.ErrorList{field.Required(fldPath.Child("apiVersion"), "")}
	}
	if fs.FieldPath == "" {
		return field.ErrorList{field.Required(fldPath.Child("fieldPath"), "")}
	}
	if fs.APIVersion != "v1" {
		return field.ErrorList{field.Invalid(fldPath.Child("fieldPath"), fs.FieldPath,
			fmt.Sprintf("error converting fieldPath: unsupported pod version: %s", fs.APIVersion))}
	}
	if path, subscript, ok := podSplitSubscript(fs.FieldPath); ok {
		switch path {
		case "metadata.annotations":
			return metav1validation.ValidateLabelName(strings.ToLower(subscript), fldPath)
		case "metadata.labels":
			return metav1validation.ValidateLabelName(subscript, fldPath)
		}
		return field.ErrorList{field.Invalid(fldPath, path, "does not support subscript")}
	}
	if !supported.Has(fs.FieldPath) {
		return field.ErrorList{field.NotSupported(fldPath.Child("fieldPath"), fs.FieldPath, sets.List(supported))}
	}
	return nil
}

// podSplitSubscript splits "metadata.labels['key']".
func podSplitSubscript(fieldPath string) (path, subscript string, ok bool) {
	if !strings.HasSuffix(fieldPath, "']") {
		return fieldPath, "", false
	}
	path, rest, found := strings.Cut(fieldPath, "['")
	if !found {
		return fieldPath, "", false
	}
	return path, strings.TrimSuffix(rest, "']"), true
}

func validatePodResourceFieldRef(fs *corev1.ResourceFieldSelector, fldPath *field.Path) field.ErrorList {
	if fs.Resource == "" {
		return field.ErrorList{field.Required(fldPath.Child("resource"), "")}
	}
	if podResourceFieldRefs.Has(fs.Resource) || strings.HasPrefix(fs.Resource, "limits.hugepages-") || strings.HasPrefix(fs.Resource, "requests.hugepages-") {
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath.Child("resource"), fs.Resource, sets.List(podResourceFieldRefs))}
}

// validatePodEnvFrom checks envFrom: one source each, a name, a valid
// prefix.
func validatePodEnvFrom(sources []corev1.EnvFromSource, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, ev := range sources {
		path := fldPath.Index(i)
		if ev.Prefix != "" {
			for _, msg := range utilvalidation.IsRelaxedEnvVarName(ev.Prefix) {
				allErrs = append(allErrs, field.Invalid(path.Child("prefix"), ev.Prefix, msg))
			}
		}
		count := 0
		if ev.ConfigMapRef != nil {
			count++
			if ev.ConfigMapRef.Name == "" {
				allErrs = append(allErrs, field.Required(path.Child("configMapRef", "name"), ""))
			}
		}
		if ev.SecretRef != nil {
			count++
			if ev.SecretRef.Name == "" {
				allErrs = append(allErrs, field.Required(path.Child("secretRef", "name"), ""))
			}
		}
		switch {
		case count == 0:
			allErrs = append(allErrs, field.Invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
		case count > 1:
			allErrs = append(allErrs, field.Invalid(path, "", "may not have more than one field specified at a time"))
		}
	}
	return allErrs
}

// validatePodPortNumOrName checks a port given by number (1-65535) or by
// IANA_SVC_NAME.
func validatePodPortNumOrName(port intstr.IntOrString, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if port.Type == intstr.String {
		for _, msg := range utilvalidation.IsValidPortName(port.StrVal) {
			allErrs = append(allErrs, field.Invalid(fldPath, port.StrVal, msg))
		}
		return allErrs
	}
	for _, msg := range utilvalidation.IsValidPortNum(port.IntValue()) {
		allErrs = append(allErrs, field.Invalid(fldPath, port.IntValue(), msg))
	}
	return allErrs
}
