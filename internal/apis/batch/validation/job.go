// Package validation checks batch/v1 jobs and cron jobs the way
// kube-apiserver does: the same rules, field paths and messages, written
// against the k8s.io/api types. Functions never change their arguments.
package validation

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// The unprefixed labels the job controller has always put on its pods,
// still generated beside batchv1.JobNameLabel and batchv1.ControllerUidLabel.
const (
	LegacyJobNameLabel       = "job-name"
	LegacyControllerUidLabel = "controller-uid"
)

// Upstream's limits for indexed jobs.
const (
	maxParallelismForIndexedJob        = 100_000
	maxFailedIndexesLimitForIndexedJob = 100_000
	completionsSoftLimit               = 100_000
	parallelismLimitForHighCompletions = 10_000
	maxManagedByLength                 = 63
)

// ValidateJobName is the name rule of jobs (that of replication
// controllers: a DNS subdomain).
var ValidateJobName = apimachineryvalidation.NameIsDNSSubdomain

// JobOptions says what a validation may relax, depending on the stored
// object.
type JobOptions struct {
	// RequirePrefixedLabels checks the batch.kubernetes.io labels of a
	// generated selector, not only the legacy ones: always on create, on
	// update only when the stored job has them.
	RequirePrefixedLabels bool
	// AllowMutableSchedulingDirectives lets an update change the template's
	// node affinity, node selector, tolerations, labels, annotations and
	// scheduling gates: the stored job is suspended and never started.
	AllowMutableSchedulingDirectives bool
	// AllowInvalidLabelValueInSelector keeps accepting a stored selector
	// that newer rules reject.
	AllowInvalidLabelValueInSelector bool
}

// ValidateJob checks a job: metadata, the generated selector and the spec.
func ValidateJob(job *batchv1.Job, opts JobOptions) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&job.ObjectMeta, true, ValidateJobName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateGeneratedSelector(job, opts.RequirePrefixedLabels)...)
	allErrs = append(allErrs, ValidateJobSpec(&job.Spec, field.NewPath("spec"), opts)...)
	return allErrs
}

// validateGeneratedSelector checks, unless the selector is manual, that
// the server-generated labels are on the template and that the selector
// selects them.
func validateGeneratedSelector(job *batchv1.Job, validateBatchLabels bool) field.ErrorList {
	if job.Spec.ManualSelector != nil && *job.Spec.ManualSelector {
		return nil
	}
	if job.Spec.Selector == nil {
		return nil // reported by ValidateJobSpec
	}
	var allErrs field.ErrorList
	if job.UID == "" {
		allErrs = append(allErrs, field.Required(field.NewPath("metadata").Child("uid"), ""))
	}
	tmplPath := field.NewPath("spec").Child("template").Child("metadata")
	expected := map[string]string{
		LegacyControllerUidLabel: string(job.UID),
		LegacyJobNameLabel:       job.Name,
	}
	if validateBatchLabels {
		expected[batchv1.ControllerUidLabel] = string(job.UID)
		expected[batchv1.JobNameLabel] = job.Name
	}
	for _, key := range []string{LegacyControllerUidLabel, LegacyJobNameLabel, batchv1.ControllerUidLabel, batchv1.JobNameLabel} {
		if want, ok := expected[key]; ok {
			allErrs = append(allErrs, validateHasLabel(&job.Spec.Template.ObjectMeta, tmplPath, key, want)...)
		}
	}
	if selector, err := metav1.LabelSelectorAsSelector(job.Spec.Selector); err == nil && !selector.Matches(labels.Set(expected)) {
		allErrs = append(allErrs, field.Invalid(field.NewPath("spec").Child("selector"), job.Spec.Selector, "`selector` not auto-generated"))
	}
	return allErrs
}

func validateHasLabel(meta *metav1.ObjectMeta, fldPath *field.Path, key, want string) field.ErrorList {
	got, ok := meta.Labels[key]
	if !ok {
		return field.ErrorList{field.Required(fldPath.Child("labels").Key(key), want)}
	}
	if got != want {
		return field.ErrorList{field.Invalid(fldPath.Child("labels").Key(key), meta.Labels, fmt.Sprintf("must be '%s'", want))}
	}
	return nil
}

// ValidateJobSpec checks a job's spec including its selector, which must
// be set and must match the template's labels.
func ValidateJobSpec(spec *batchv1.JobSpec, fldPath *field.Path, opts JobOptions) field.ErrorList {
	allErrs := validateJobSpec(spec, fldPath)
	if spec.Selector == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("selector"), ""))
	} else {
		selOpts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: opts.AllowInvalidLabelValueInSelector}
		allErrs = append(allErrs, metav1validation.ValidateLabelSelector(spec.Selector, selOpts, fldPath.Child("selector"))...)
	}
	if selector, err := metav1.LabelSelectorAsSelector(spec.Selector); err == nil && !selector.Matches(labels.Set(spec.Template.Labels)) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("template", "metadata", "labels"), spec.Template.Labels, "`selector` does not match template `labels`"))
	}
	return allErrs
}

// validateJobSpec checks what jobs and cron job templates share.
func validateJobSpec(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	nonNegative := []struct {
		name  string
		value *int32
	}{
		{"parallelism", spec.Parallelism},
		{"completions", spec.Completions},
		{"backoffLimit", spec.BackoffLimit},
		{"ttlSecondsAfterFinished", spec.TTLSecondsAfterFinished},
		{"backoffLimitPerIndex", spec.BackoffLimitPerIndex},
		{"maxFailedIndexes", spec.MaxFailedIndexes},
	}
	for _, f := range nonNegative {
		if f.value != nil {
			allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(*f.value), fldPath.Child(f.name))...)
		}
	}
	if spec.ActiveDeadlineSeconds != nil {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(*spec.ActiveDeadlineSeconds, fldPath.Child("activeDeadlineSeconds"))...)
	}
	if spec.MaxFailedIndexes != nil && spec.BackoffLimitPerIndex == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
	}
	if spec.ManagedBy != nil {
		allErrs = append(allErrs, utilvalidation.IsDomainPrefixedPath(fldPath.Child("managedBy"), *spec.ManagedBy)...)
		if len(*spec.ManagedBy) > maxManagedByLength {
			allErrs = append(allErrs, field.TooLong(fldPath.Child("managedBy"), "", maxManagedByLength))
		}
	}
	allErrs = append(allErrs, validateCompletionMode(spec, fldPath)...)
	allErrs = append(allErrs, validatePodReplacementPolicy(spec, fldPath.Child("podReplacementPolicy"))...)
	allErrs = append(allErrs, corevalidation.ValidatePodTemplateSpec(&spec.Template, fldPath.Child("template"))...)
	allErrs = append(allErrs, validateRestartPolicy(spec, fldPath.Child("template", "spec", "restartPolicy"))...)
	return allErrs
}

func validateCompletionMode(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	mode := batchv1.NonIndexedCompletion
	if spec.CompletionMode != nil {
		mode = *spec.CompletionMode
	}
	switch mode {
	case batchv1.NonIndexedCompletion:
		if spec.BackoffLimitPerIndex != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("backoffLimitPerIndex"), *spec.BackoffLimitPerIndex, "requires indexed completion mode"))
		}
		if spec.MaxFailedIndexes != nil {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "requires indexed completion mode"))
		}
	case batchv1.IndexedCompletion:
		if spec.Completions == nil {
			allErrs = append(allErrs, field.Required(fldPath.Child("completions"), fmt.Sprintf("when completion mode is %s", batchv1.IndexedCompletion)))
		}
		if spec.Parallelism != nil && *spec.Parallelism > maxParallelismForIndexedJob {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("parallelism"), *spec.Parallelism,
				fmt.Sprintf("must be less than or equal to %d when completion mode is %s", maxParallelismForIndexedJob, batchv1.IndexedCompletion)))
		}
		if spec.Completions != nil && spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > *spec.Completions {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes, "must be less than or equal to completions"))
		}
		if spec.MaxFailedIndexes != nil && *spec.MaxFailedIndexes > maxFailedIndexesLimitForIndexedJob {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("maxFailedIndexes"), *spec.MaxFailedIndexes,
				fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesLimitForIndexedJob)))
		}
		if spec.Completions != nil && *spec.Completions > completionsSoftLimit && spec.BackoffLimitPerIndex != nil {
			if spec.MaxFailedIndexes == nil {
				allErrs = append(allErrs, field.Required(fldPath.Child("maxFailedIndexes"), fmt.Sprintf("must be specified when completions is above %d", completionsSoftLimit)))
			}
			if spec.Parallelism != nil && *spec.Parallelism > parallelismLimitForHighCompletions {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("parallelism"), *spec.Parallelism,
					fmt.Sprintf("must be less than or equal to %d when completions are above %d and used with backoff limit per index", parallelismLimitForHighCompletions, completionsSoftLimit)))
			}
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("completionMode"), mode,
			[]batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion}))
	}
	return allErrs
}

func validatePodReplacementPolicy(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	if spec.PodReplacementPolicy == nil {
		return nil
	}
	switch p := *spec.PodReplacementPolicy; {
	case p == batchv1.Failed:
		return nil
	case p == batchv1.TerminatingOrFailed && spec.PodFailurePolicy == nil:
		return nil
	case spec.PodFailurePolicy != nil:
		return field.ErrorList{field.NotSupported(fldPath, p, []batchv1.PodReplacementPolicy{batchv1.Failed})}
	default:
		return field.ErrorList{field.NotSupported(fldPath, p, []batchv1.PodReplacementPolicy{batchv1.TerminatingOrFailed, batchv1.Failed})}
	}
}

// validateRestartPolicy: pods of a job run to completion. An empty policy
// is reported as required because pod defaulting would make it Always.
func validateRestartPolicy(spec *batchv1.JobSpec, fldPath *field.Path) field.ErrorList {
	switch p := spec.Template.Spec.RestartPolicy; {
	case p == corev1.RestartPolicyAlways || p == "":
		return field.ErrorList{field.Required(fldPath, fmt.Sprintf("valid values: %q, %q", corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever))}
	case p != corev1.RestartPolicyOnFailure && p != corev1.RestartPolicyNever:
		return field.ErrorList{field.NotSupported(fldPath, p, []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever})}
	case spec.PodFailurePolicy != nil && p != corev1.RestartPolicyNever:
		return field.ErrorList{field.Invalid(fldPath, p, fmt.Sprintf("only %q is supported when podFailurePolicy is specified", corev1.RestartPolicyNever))}
	}
	return nil
}
