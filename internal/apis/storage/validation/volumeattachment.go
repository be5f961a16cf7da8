package validation

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// Limits on what attachers report in a volume attachment's status.
const (
	maxAttachedVolumeMetadataSize = 256 * (1 << 10)
	maxVolumeErrorMessageSize     = 1024
)

// ValidateVolumeAttachment checks a volume attachment on create and, as
// part of ValidateVolumeAttachmentUpdate, on every update.
func ValidateVolumeAttachment(va *storagev1.VolumeAttachment) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&va.ObjectMeta, false, ValidateClassName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateVolumeAttachmentSpec(&va.Spec, field.NewPath("spec"))...)
	allErrs = append(allErrs, validateVolumeAttachmentStatus(&va.Status, field.NewPath("status"))...)
	// storage.k8s.io/v1 adds stricter names for the attacher and the PV.
	allErrs = append(allErrs, ValidateCSIDriverName(va.Spec.Attacher, field.NewPath("spec", "attacher"))...)
	if pv := va.Spec.Source.PersistentVolumeName; pv != nil {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(*pv, false) {
			allErrs = append(allErrs, field.Invalid(field.NewPath("spec", "source", "persistentVolumeName"), *pv, msg))
		}
	}
	return allErrs
}

// ValidateVolumeAttachmentUpdate checks an update: the spec is read-only.
func ValidateVolumeAttachmentUpdate(va, old *storagev1.VolumeAttachment) field.ErrorList {
	allErrs := ValidateVolumeAttachment(va)
	allErrs = append(allErrs, corevalidation.ValidateObjectMetaUpdate(&va.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	if !equality.Semantic.DeepEqual(old.Spec, va.Spec) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("spec"), va.Spec, "field is immutable"))
	}
	return allErrs
}

func validateVolumeAttachmentSpec(spec *storagev1.VolumeAttachmentSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if spec.Attacher == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("attacher"), spec.Attacher))
	}
	allErrs = append(allErrs, validateVolumeAttachmentSource(&spec.Source, fldPath.Child("source"))...)
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(spec.NodeName, false) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("nodeName"), spec.NodeName, msg))
	}
	return allErrs
}

// validateVolumeAttachmentSource requires exactly one source. An inline
// volume spec is checked no further: kapi has no persistent volume
// validation yet.
func validateVolumeAttachmentSource(source *storagev1.VolumeAttachmentSource, fldPath *field.Path) field.ErrorList {
	const exactlyOne = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
	switch {
	case source.InlineVolumeSpec == nil && source.PersistentVolumeName == nil:
		return field.ErrorList{field.Required(fldPath, exactlyOne)}
	case source.InlineVolumeSpec != nil && source.PersistentVolumeName != nil:
		return field.ErrorList{field.Forbidden(fldPath, exactlyOne)}
	case source.PersistentVolumeName != nil && *source.PersistentVolumeName == "":
		return field.ErrorList{field.Required(fldPath.Child("persistentVolumeName"), "must specify non empty persistentVolumeName")}
	}
	return nil
}

func validateVolumeAttachmentStatus(status *storagev1.VolumeAttachmentStatus, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	size := 0
	for k, v := range status.AttachmentMetadata {
		size += len(k) + len(v)
	}
	if size > maxAttachedVolumeMetadataSize {
		allErrs = append(allErrs, field.TooLong(fldPath.Child("attachmentMetadata"), "", maxAttachedVolumeMetadataSize))
	}
	allErrs = append(allErrs, validateVolumeError(status.AttachError, fldPath.Child("attachError"))...)
	allErrs = append(allErrs, validateVolumeError(status.DetachError, fldPath.Child("detachError"))...)
	return allErrs
}

func validateVolumeError(e *storagev1.VolumeError, fldPath *field.Path) field.ErrorList {
	if e != nil && len(e.Message) > maxVolumeErrorMessageSize {
		return field.ErrorList{field.TooLong(fldPath.Child("message"), e.Message, maxVolumeErrorMessageSize)}
	}
	return nil
}
