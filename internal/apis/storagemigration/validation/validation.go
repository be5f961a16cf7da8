// Package validation checks storagemigration.k8s.io/v1 storage version
// migrations the way kube-apiserver does: the resource to migrate on
// create, an immutable spec, and status updates whose resourceVersion is
// set once and whose Succeeded/Failed/Running conditions stay consistent.
package validation

import (
	"fmt"
	"strings"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateStorageVersionMigration checks a new migration: a DNS-subdomain
// name, a DNS-label resource and, when set, a DNS-subdomain group.
func ValidateStorageVersionMigration(svm *storagemigrationv1.StorageVersionMigration) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&svm.ObjectMeta, false, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	resPath := field.NewPath("spec", "resource")
	r := svm.Spec.Resource
	if r.Resource == "" {
		allErrs = append(allErrs, field.Required(resPath.Child("resource"), "resource is required to be set"))
	} else if errs := validation.IsDNS1035Label(r.Resource); len(errs) > 0 {
		allErrs = append(allErrs, field.Invalid(resPath.Child("resource"), r.Resource, strings.Join(errs, ",")))
	}
	if r.Group != "" {
		if errs := validation.IsDNS1123Subdomain(r.Group); len(errs) > 0 {
			allErrs = append(allErrs, field.Invalid(resPath.Child("group"), r.Group, strings.Join(errs, ",")))
		}
	}
	return allErrs
}

// ValidateStorageVersionMigrationUpdate checks an update: the spec cannot
// change.
func ValidateStorageVersionMigrationUpdate(svm, old *storagemigrationv1.StorageVersionMigration) field.ErrorList {
	allErrs := ValidateStorageVersionMigration(svm)
	allErrs = append(allErrs, corevalidation.ValidateObjectMetaUpdate(&svm.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	return append(allErrs, apimachineryvalidation.ValidateImmutableField(svm.Spec, old.Spec, field.NewPath("spec"))...)
}

// ValidateStorageVersionMigrationStatusUpdate checks a status write.
func ValidateStorageVersionMigrationStatusUpdate(svm, old *storagemigrationv1.StorageVersionMigration) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&svm.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	statusPath := field.NewPath("status")
	rv := svm.Status.ResourceVersion
	if c, err := resourceversion.CompareResourceVersion(rv, rv); err != nil || c != 0 {
		if err == nil {
			err = fmt.Errorf("unable to compare resource versions, %s is not equal to %s", rv, rv)
		}
		allErrs = append(allErrs, field.Invalid(statusPath.Child("resourceVersion"), rv, err.Error()))
	}
	condPath := statusPath.Child("conditions")
	allErrs = append(allErrs, metav1validation.ValidateConditions(svm.Status.Conditions, condPath)...)
	if old.Status.ResourceVersion != "" && old.Status.ResourceVersion != rv {
		allErrs = append(allErrs, field.Invalid(statusPath.Child("resourceVersion"), rv, "field is immutable"))
	}

	succeeded, failed, running := isTrue(svm, storagemigrationv1.MigrationSucceeded), isTrue(svm, storagemigrationv1.MigrationFailed), isTrue(svm, storagemigrationv1.MigrationRunning)
	conds := svm.Status.Conditions
	for _, rule := range []struct {
		broken bool
		msg    string
	}{
		{succeeded && failed, "Both success and failed conditions cannot be true at the same time"},
		{succeeded && running, "Running condition cannot be true when success condition is true"},
		{failed && running, "Running condition cannot be true when failed condition is true"},
		{isTrue(old, storagemigrationv1.MigrationSucceeded) && !succeeded, "Success condition cannot be set to false once it is true"},
		{isTrue(old, storagemigrationv1.MigrationFailed) && !failed, "Failed condition cannot be set to false once it is true"},
	} {
		if rule.broken {
			allErrs = append(allErrs, field.Invalid(condPath, conds, rule.msg))
		}
	}
	return allErrs
}

func isTrue(svm *storagemigrationv1.StorageVersionMigration, t storagemigrationv1.MigrationConditionType) bool {
	return meta.IsStatusConditionTrue(svm.Status.Conditions, string(t))
}
