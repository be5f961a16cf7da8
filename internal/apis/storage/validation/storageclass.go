package validation

import (
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// Limits upstream puts on provisioner (and driver) parameters.
const (
	maxProvisionerParameterSize = 256 * (1 << 10)
	maxProvisionerParameterLen  = 512
)

var (
	supportedReclaimPolicies = sets.New(string(corev1.PersistentVolumeReclaimDelete), string(corev1.PersistentVolumeReclaimRetain))
	supportedBindingModes    = sets.New(string(storagev1.VolumeBindingImmediate), string(storagev1.VolumeBindingWaitForFirstConsumer))
)

// ValidateClassName is the name rule of storage classes and the other
// cluster-scoped storage kinds: a DNS subdomain.
var ValidateClassName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateStorageClass checks a new storage class.
func ValidateStorageClass(sc *storagev1.StorageClass) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&sc.ObjectMeta, false, ValidateClassName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateProvisioner(sc.Provisioner, field.NewPath("provisioner"))...)
	allErrs = append(allErrs, validateParameters(sc.Parameters, true, field.NewPath("parameters"))...)
	allErrs = append(allErrs, validateReclaimPolicy(sc.ReclaimPolicy, field.NewPath("reclaimPolicy"))...)
	allErrs = append(allErrs, validateVolumeBindingMode(sc.VolumeBindingMode, field.NewPath("volumeBindingMode"))...)
	allErrs = append(allErrs, validateAllowedTopologies(sc.AllowedTopologies, field.NewPath("allowedTopologies"))...)
	return allErrs
}

// ValidateStorageClassUpdate checks an update: provisioner, parameters,
// reclaimPolicy and volumeBindingMode are fixed once created.
func ValidateStorageClassUpdate(sc, old *storagev1.StorageClass) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&sc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	if !reflect.DeepEqual(old.Parameters, sc.Parameters) {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden."))
	}
	if sc.Provisioner != old.Provisioner {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("provisioner"), "updates to provisioner are forbidden."))
	}
	if !reflect.DeepEqual(sc.ReclaimPolicy, old.ReclaimPolicy) {
		allErrs = append(allErrs, field.Forbidden(field.NewPath("reclaimPolicy"), "updates to reclaimPolicy are forbidden."))
	}
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(sc.VolumeBindingMode, old.VolumeBindingMode, field.NewPath("volumeBindingMode"))...)
	return allErrs
}

// validateProvisioner checks a provisioner or driver name: required and a
// qualified name (case-insensitive).
func validateProvisioner(provisioner string, fldPath *field.Path) field.ErrorList {
	if provisioner == "" {
		return field.ErrorList{field.Required(fldPath, provisioner)}
	}
	var allErrs field.ErrorList
	for _, msg := range validation.IsQualifiedName(strings.ToLower(provisioner)) {
		allErrs = append(allErrs, field.Invalid(fldPath, provisioner, msg))
	}
	return allErrs
}

// validateParameters bounds the number and size of parameters and rejects
// empty keys; allowEmpty false requires at least one.
func validateParameters(params map[string]string, allowEmpty bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(params) > maxProvisionerParameterLen {
		return append(allErrs, field.TooLong(fldPath, "Provisioner Parameters exceeded max allowed", maxProvisionerParameterLen))
	}
	var totalSize int64
	for k, v := range params {
		if k == "" {
			allErrs = append(allErrs, field.Invalid(fldPath, k, "field can not be empty."))
		}
		totalSize += int64(len(k)) + int64(len(v))
	}
	if totalSize > maxProvisionerParameterSize {
		allErrs = append(allErrs, field.TooLong(fldPath, "", maxProvisionerParameterSize))
	}
	if !allowEmpty && len(params) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, "must contain at least one key/value pair"))
	}
	return allErrs
}

// validateReclaimPolicy allows Delete and Retain: Recycle is not offered
// for dynamically provisioned volumes.
func validateReclaimPolicy(policy *corev1.PersistentVolumeReclaimPolicy, fldPath *field.Path) field.ErrorList {
	if policy == nil || *policy == "" || supportedReclaimPolicies.Has(string(*policy)) {
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath, *policy, sets.List(supportedReclaimPolicies))}
}

func validateVolumeBindingMode(mode *storagev1.VolumeBindingMode, fldPath *field.Path) field.ErrorList {
	if mode == nil {
		return field.ErrorList{field.Required(fldPath, "")}
	}
	if !supportedBindingModes.Has(string(*mode)) {
		return field.ErrorList{field.NotSupported(fldPath, *mode, sets.List(supportedBindingModes))}
	}
	return nil
}

// validateAllowedTopologies checks each topology term and rejects
// duplicate terms.
func validateAllowedTopologies(terms []corev1.TopologySelectorTerm, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, term := range terms {
		idxPath := fldPath.Index(i)
		allErrs = append(allErrs, validateTopologySelectorTerm(term, idxPath)...)
		for _, earlier := range terms[:i] {
			if reflect.DeepEqual(earlier, term) {
				allErrs = append(allErrs, field.Duplicate(idxPath, term))
				break
			}
		}
	}
	return allErrs
}

func validateTopologySelectorTerm(term corev1.TopologySelectorTerm, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, req := range term.MatchLabelExpressions {
		reqPath := fldPath.Child("matchLabelExpressions").Index(i)
		allErrs = append(allErrs, metav1validation.ValidateLabelName(req.Key, reqPath.Child("key"))...)
		valuesPath := reqPath.Child("values")
		if len(req.Values) == 0 {
			allErrs = append(allErrs, field.Required(valuesPath, "must specify as least one value"))
		}
		seen := sets.New[string]()
		for j, v := range req.Values {
			if seen.Has(v) {
				allErrs = append(allErrs, field.Duplicate(valuesPath.Index(j), v))
			}
			seen.Insert(v)
		}
	}
	return allErrs
}
