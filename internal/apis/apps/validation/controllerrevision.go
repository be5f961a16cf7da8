package validation

import (
	appsv1 "k8s.io/api/apps/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateControllerRevisionName is the rule for controller revision
// names.
var ValidateControllerRevisionName = apimachineryvalidation.NameIsDNSSubdomain

// ValidateControllerRevision validates a controller revision: metadata,
// data present, revision not negative.
func ValidateControllerRevision(cr *appsv1.ControllerRevision) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&cr.ObjectMeta, true, ValidateControllerRevisionName, field.NewPath("metadata"))
	if cr.Data.Raw == nil && cr.Data.Object == nil {
		allErrs = append(allErrs, field.Required(field.NewPath("data"), "data is mandatory"))
	}
	return append(allErrs, apimachineryvalidation.ValidateNonnegativeField(cr.Revision, field.NewPath("revision"))...)
}

// ValidateControllerRevisionUpdate validates an update: the revision as
// on create, and data, which may not change.
func ValidateControllerRevisionUpdate(cr, old *appsv1.ControllerRevision) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&cr.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateControllerRevision(cr)...)
	return append(allErrs, apimachineryvalidation.ValidateImmutableField(cr.Data, old.Data, field.NewPath("data"))...)
}
