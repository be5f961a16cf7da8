package validation

import (
	"encoding/json"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateSecretName is the name rule of secrets: a DNS subdomain.
func ValidateSecretName(name string, prefix bool) []string {
	return apimachineryvalidation.NameIsDNSSubdomain(name, prefix)
}

// redacted stands for secret content in error values, so that a rejected
// secret is never echoed back.
const redacted = "<secret contents redacted>"

// ValidateSecret validates a secret on create: name, keys, total size and
// the keys its type requires. stringData must already be merged into data
// (the strategy does it), as upstream validates the converted object.
func ValidateSecret(s *corev1.Secret) field.ErrorList {
	allErrs := ValidateObjectMeta(&s.ObjectMeta, true, ValidateSecretName, field.NewPath("metadata"))

	dataPath := field.NewPath("data")
	totalSize := 0
	for key, value := range s.Data {
		allErrs = append(allErrs, validateDataKey(key, dataPath.Key(key))...)
		totalSize += len(value)
	}
	if totalSize > MaxSecretSize {
		allErrs = append(allErrs, field.TooLong(dataPath, "", MaxSecretSize))
	}
	return append(allErrs, validateSecretType(s, dataPath)...)
}

// validateSecretType checks the keys each well-known secret type needs.
// Unknown types, Opaque and the empty type have no rules.
func validateSecretType(s *corev1.Secret, dataPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		// Only the account name is required: the token controller fills in
		// the uid annotation and the token later.
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			allErrs = append(allErrs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		allErrs = append(allErrs, validateJSONKey(s.Data, corev1.DockerConfigKey, dataPath)...)
	case corev1.SecretTypeDockerConfigJson:
		allErrs = append(allErrs, validateJSONKey(s.Data, corev1.DockerConfigJsonKey, dataPath)...)
	case corev1.SecretTypeBasicAuth:
		// Either key may be empty, but one of them must be there.
		_, hasUser := s.Data[corev1.BasicAuthUsernameKey]
		_, hasPassword := s.Data[corev1.BasicAuthPasswordKey]
		if !hasUser && !hasPassword {
			allErrs = append(allErrs,
				field.Required(dataPath.Key(corev1.BasicAuthUsernameKey), ""),
				field.Required(dataPath.Key(corev1.BasicAuthPasswordKey), ""))
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			allErrs = append(allErrs, field.Required(dataPath.Key(corev1.SSHAuthPrivateKey), ""))
		}
	case corev1.SecretTypeTLS:
		for _, key := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
			if _, ok := s.Data[key]; !ok {
				allErrs = append(allErrs, field.Required(dataPath.Key(key), ""))
			}
		}
	}
	return allErrs
}

// validateJSONKey requires data[key] to be present and to hold a JSON
// object.
func validateJSONKey(data map[string][]byte, key string, dataPath *field.Path) field.ErrorList {
	value, ok := data[key]
	if !ok {
		return field.ErrorList{field.Required(dataPath.Key(key), "")}
	}
	if err := json.Unmarshal(value, &map[string]any{}); err != nil {
		return field.ErrorList{field.Invalid(dataPath.Key(key), redacted, err.Error())}
	}
	return nil
}

// ValidateSecretUpdate validates an update: metadata rules, the type is
// immutable, the immutable flag, then the new object as on create.
func ValidateSecretUpdate(s, old *corev1.Secret) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(&s.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(s.Type, old.Type, field.NewPath("type"))...)
	if isTrue(old.Immutable) {
		if !isTrue(s.Immutable) {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("immutable"), immutableWhenSetMsg))
		}
		if !reflect.DeepEqual(s.Data, old.Data) {
			allErrs = append(allErrs, field.Forbidden(field.NewPath("data"), immutableWhenSetMsg))
		}
	}
	return append(allErrs, ValidateSecret(s)...)
}
