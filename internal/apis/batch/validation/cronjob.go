package validation

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	corevalidation "github.com/kapi-dev/kapi/internal/apis/core/validation"
)

// maxCronJobNameLength leaves room for the 11-character suffix the cron
// job controller appends to name its jobs (a job name is at most 63).
const maxCronJobNameLength = 63 - 11

// validTimeZoneCharacters is one component of an IANA time zone name
// (digits and + are tolerated for legacy names).
var validTimeZoneCharacters = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// ValidateCronJobCreate checks a new cron job.
func ValidateCronJobCreate(cj *batchv1.CronJob) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&cj.ObjectMeta, true, ValidateJobName, field.NewPath("metadata"))
	allErrs = append(allErrs, validateCronJobSpec(&cj.Spec, nil, field.NewPath("spec"))...)
	if len(cj.Name) > maxCronJobNameLength {
		allErrs = append(allErrs, field.Invalid(field.NewPath("metadata").Child("name"), cj.Name, fmt.Sprintf("must be no more than %d characters", maxCronJobNameLength)))
	}
	return allErrs
}

// ValidateCronJobUpdate checks an update. The name length limit is not
// checked so that older, longer-named cron jobs stay writable.
func ValidateCronJobUpdate(cj, old *batchv1.CronJob) field.ErrorList {
	allErrs := corevalidation.ValidateObjectMeta(&cj.ObjectMeta, true, ValidateJobName, field.NewPath("metadata"))
	allErrs = append(allErrs, corevalidation.ValidateObjectMetaUpdate(&cj.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))...)
	return append(allErrs, validateCronJobSpec(&cj.Spec, &old.Spec, field.NewPath("spec"))...)
}

func validateCronJobSpec(spec, oldSpec *batchv1.CronJobSpec, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(spec.Schedule) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("schedule"), ""))
	} else {
		// A stored schedule with TZ= stays valid; new ones must use timeZone.
		allowTZ := oldSpec != nil && strings.Contains(oldSpec.Schedule, "TZ")
		allErrs = append(allErrs, validateSchedule(spec.Schedule, allowTZ, spec.TimeZone, fldPath.Child("schedule"))...)
	}
	if spec.StartingDeadlineSeconds != nil {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(*spec.StartingDeadlineSeconds, fldPath.Child("startingDeadlineSeconds"))...)
	}
	if oldSpec == nil || !ptr.Equal(oldSpec.TimeZone, spec.TimeZone) {
		allErrs = append(allErrs, validateTimeZone(spec.TimeZone, fldPath.Child("timeZone"))...)
	}
	allErrs = append(allErrs, validateConcurrencyPolicy(spec.ConcurrencyPolicy, fldPath.Child("concurrencyPolicy"))...)
	allErrs = append(allErrs, ValidateJobTemplateSpec(&spec.JobTemplate, fldPath.Child("jobTemplate"))...)
	if spec.SuccessfulJobsHistoryLimit != nil {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(*spec.SuccessfulJobsHistoryLimit), fldPath.Child("successfulJobsHistoryLimit"))...)
	}
	if spec.FailedJobsHistoryLimit != nil {
		allErrs = append(allErrs, apimachineryvalidation.ValidateNonnegativeField(int64(*spec.FailedJobsHistoryLimit), fldPath.Child("failedJobsHistoryLimit"))...)
	}
	return allErrs
}

func validateSchedule(schedule string, allowTZ bool, timeZone *string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if err := ParseCronSchedule(schedule); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath, schedule, err.Error()))
	}
	hasTZ := strings.Contains(schedule, "TZ")
	switch {
	case allowTZ && hasTZ && timeZone != nil:
		allErrs = append(allErrs, field.Invalid(fldPath, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
	case !allowTZ && hasTZ:
		allErrs = append(allErrs, field.Invalid(fldPath, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	}
	return allErrs
}

func validateTimeZone(timeZone *string, fldPath *field.Path) field.ErrorList {
	if timeZone == nil {
		return nil
	}
	tz := *timeZone
	if len(tz) == 0 {
		return field.ErrorList{field.Invalid(fldPath, timeZone, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !validTimeZoneCharacters.MatchString(part) {
			return field.ErrorList{field.Invalid(fldPath, timeZone, fmt.Sprintf("unknown time zone %s", tz))}
		}
	}
	var allErrs field.ErrorList
	if strings.EqualFold(tz, "Local") {
		allErrs = append(allErrs, field.Invalid(fldPath, timeZone, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(tz); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath, timeZone, err.Error()))
	}
	return allErrs
}

func validateConcurrencyPolicy(policy batchv1.ConcurrencyPolicy, fldPath *field.Path) field.ErrorList {
	switch policy {
	case batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
		return nil
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	default:
		return field.ErrorList{field.NotSupported(fldPath, policy,
			[]batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent})}
	}
}

// ValidateJobTemplateSpec checks a cron job's job template: a job spec
// whose selector the server will generate.
func ValidateJobTemplateSpec(spec *batchv1.JobTemplateSpec, fldPath *field.Path) field.ErrorList {
	allErrs := validateJobSpec(&spec.Spec, fldPath.Child("spec"))
	if spec.Spec.Selector != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("spec", "selector"), spec.Spec.Selector, "`selector` will be auto-generated"))
	}
	if spec.Spec.ManualSelector != nil && *spec.Spec.ManualSelector {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("spec", "manualSelector"), spec.Spec.ManualSelector, []string{"nil", "false"}))
	}
	return allErrs
}
