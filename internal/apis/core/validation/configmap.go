package validation

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxSecretSize bounds the summed size of a secret's or config map's values
// (1 MiB), as upstream.
const MaxSecretSize = 1 * 1024 * 1024

// ValidateConfigMapName is the name rule of config maps: a DNS subdomain.
func ValidateConfigMapName(name string, prefix bool) []string {
	return apimachineryvalidation.NameIsDNSSubdomain(name, prefix)
}

// ValidateConfigMap validates a config map on create: its name and keys,
// that no key is in both data and binaryData, and the total size.
func ValidateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	allErrs := ValidateObjectMeta(&cm.ObjectMeta, true, ValidateConfigMapName, field.NewPath("metadata"))

	dataPath, binaryPath := field.NewPath("data"), field.NewPath("binaryData")
	totalSize := 0
	for key, value := range cm.Data {
		allErrs = append(allErrs, validateDataKey(key, dataPath.Key(key))...)
		if _, dup := cm.BinaryData[key]; dup {
			allErrs = append(allErrs, field.Invalid(dataPath.Key(key), key, "duplicate of key present in binaryData"))
		}
		totalSize += len(value)
	}
	for key, value := range cm.BinaryData {
		allErrs = append(allErrs, validateDataKey(key, binaryPath.Key(key))...)
		totalSize += len(value)
	}
	if totalSize > MaxSecretSize {
		// The empty path (rendered "[]") says the error is about the
		// whole object, as upstream reports it.
		allErrs = append(allErrs, field.TooLong(field.NewPath(""), "", MaxSecretSize))
	}
	return allErrs
}

// ValidateConfigMapUpdate validates an update: metadata rules, the
// immutable flag, then the new object as on create.
func ValidateConfigMapUpdate(cm, old *corev1.ConfigMap) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&cm.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if isTrue(old.Immutable) {
		if !isTrue(cm.Immutable) {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("immutable"), immutableWhenSetMsg))
		}
		if !reflect.DeepEqual(cm.Data, old.Data) {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("data"), immutableWhenSetMsg))
		}
		if !reflect.DeepEqual(cm.BinaryData, old.BinaryData) {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("binaryData"), immutableWhenSetMsg))
		}
	}
	return append(allErrs, ValidateConfigMap(cm)...)
}

// validateDataKey checks a config map or secret key.
func validateDataKey(key string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsConfigMapKey(key) {
		allErrs = append(allErrs, field.Invalid(fldPath, key, msg))
	}
	return allErrs
}

func isTrue(b *bool) bool { return b != nil && *b }
