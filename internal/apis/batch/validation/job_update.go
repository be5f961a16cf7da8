package validation

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// ValidateJobUpdate checks an update of a job: the new job is valid, the
// metadata update is allowed and the immutable parts of the spec kept.
func ValidateJobUpdate(job, oldJob *batchv1.Job, opts JobOptions) field.ErrorList {
	allErrs := ValidateJob(job, opts)
	allErrs = append(allErrs, corevalidation.ValidateObjectMetaUpdate(&job.ObjectMeta, &oldJob.ObjectMeta, field.NewPath("metadata"))...)
	return append(allErrs, validateJobSpecUpdate(&job.Spec, &oldJob.Spec, field.NewPath("spec"), opts)...)
}

func validateJobSpecUpdate(spec, oldSpec *batchv1.JobSpec, fldPath *field.Path, opts JobOptions) field.ErrorList {
	allErrs := validateCompletionsUpdate(spec, oldSpec, fldPath.Child("completions"))
	allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(spec.Selector, oldSpec.Selector, fldPath.Child("selector"))...)
	allErrs = append(allErrs, validatePodTemplateUpdate(spec, oldSpec, fldPath, opts)...)
	immutable := []struct {
		name     string
		new, old any
	}{
		{"completionMode", spec.CompletionMode, oldSpec.CompletionMode},
		{"podFailurePolicy", spec.PodFailurePolicy, oldSpec.PodFailurePolicy},
		{"backoffLimitPerIndex", spec.BackoffLimitPerIndex, oldSpec.BackoffLimitPerIndex},
		{"managedBy", spec.ManagedBy, oldSpec.ManagedBy},
		{"successPolicy", spec.SuccessPolicy, oldSpec.SuccessPolicy},
	}
	for _, f := range immutable {
		allErrs = append(allErrs, apimachineryvalidation.ValidateImmutableField(f.new, f.old, fldPath.Child(f.name))...)
	}
	return allErrs
}

// validateCompletionsUpdate: completions is immutable, except that an
// indexed job may change it together with parallelism (elastic indexed
// jobs).
func validateCompletionsUpdate(spec, oldSpec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	indexed := spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion
	if !indexed {
		return apimachineryvalidation.ValidateImmutableField(spec.Completions, oldSpec.Completions, fldPath)
	}
	if equality.Semantic.DeepEqual(spec.Completions, oldSpec.Completions) || spec.Completions == nil {
		return nil
	}
	if spec.Parallelism == nil || *spec.Completions != *spec.Parallelism {
		return field.ErrorList{field.Invalid(fldPath, spec.Completions,
			fmt.Sprintf("can only be modified in tandem with %s", fldPath.Root().Child("parallelism").String()))}
	}
	return nil
}

// validatePodTemplateUpdate: the template is immutable, except for the
// scheduling directives of a suspended job that never started.
func validatePodTemplateUpdate(spec, oldSpec *batchv1.JobSpec, fldPath *field.Path, opts JobOptions) field.ErrorList {
	oldTemplate := &oldSpec.Template
	if opts.AllowMutableSchedulingDirectives {
		oldTemplate = oldSpec.Template.DeepCopy()
		tmpl := &spec.Template
		switch {
		case tmpl.Spec.Affinity == nil && oldTemplate.Spec.Affinity != nil:
			// Clearing affinity is allowed when it held only node affinity.
			oldTemplate.Spec.Affinity.NodeAffinity = nil
			if *oldTemplate.Spec.Affinity == (corev1.Affinity{}) {
				oldTemplate.Spec.Affinity = nil
			}
		case tmpl.Spec.Affinity != nil && oldTemplate.Spec.Affinity == nil:
			oldTemplate.Spec.Affinity = &corev1.Affinity{NodeAffinity: tmpl.Spec.Affinity.NodeAffinity}
		case tmpl.Spec.Affinity != nil && oldTemplate.Spec.Affinity != nil:
			oldTemplate.Spec.Affinity.NodeAffinity = tmpl.Spec.Affinity.NodeAffinity
		}
		oldTemplate.Spec.NodeSelector = tmpl.Spec.NodeSelector
		oldTemplate.Spec.Tolerations = tmpl.Spec.Tolerations
		oldTemplate.Annotations = tmpl.Annotations
		oldTemplate.Labels = tmpl.Labels
		oldTemplate.Spec.SchedulingGates = tmpl.Spec.SchedulingGates
	}
	return apimachineryvalidation.ValidateImmutableField(&spec.Template, oldTemplate, fldPath.Child("template"))
}

// ValidateJobStatusUpdate checks a write of a job's status: metadata and
// counters that cannot be negative.
func ValidateJobStatusUpdate(job, oldJob *batchv1.Job) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMetaUpdate(&job.ObjectMeta, &oldJob.ObjectMeta, field.NewPath("metadata"))
	status, fldPath := &job.Status, field.NewPath("status")
	counters := []struct {
		name  string
		value int32
	}{
		{"active", status.Active},
		{"succeeded", status.Succeeded},
		{"failed", status.Failed},
	}
	for _, c := range counters {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(c.value), fldPath.Child(c.name))...)
	}
	if status.Ready != nil {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(*status.Ready), fldPath.Child("ready"))...)
	}
	if status.Terminating != nil {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(*status.Terminating), fldPath.Child("terminating"))...)
	}
	return allErrs
}
