// Package cronjob is the REST storage of batch/v1 cron jobs: the strategy
// (status reset, generation, schedule and time zone validation), the
// status subresource and the table kubectl prints.
package cronjob

import (
	"context"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/batch/validation"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how cron jobs are written: rest.SpecStatusStrategy with
// cron job validation.
type Strategy struct {
	rest.SpecStatusStrategy
}

var (
	_ rest.RESTCreateStrategy  = Strategy{}
	_ rest.RESTUpdateStrategy  = Strategy{}
	_ rest.ResetFieldsStrategy = Strategy{}
)

// NewStrategy returns the cron job strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// PrepareForCreate resets status, sets generation 1 and drops the alpha
// scheduling field of the job template.
func (s Strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.SpecStatusStrategy.PrepareForCreate(ctx, obj)
	obj.(*batchv1.CronJob).Spec.JobTemplate.Spec.Scheduling = nil
}

// PrepareForUpdate keeps status, bumps generation on spec changes and
// keeps the alpha scheduling field only when already stored.
func (s Strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	if old.(*batchv1.CronJob).Spec.JobTemplate.Spec.Scheduling == nil {
		obj.(*batchv1.CronJob).Spec.JobTemplate.Spec.Scheduling = nil
	}
	s.SpecStatusStrategy.PrepareForUpdate(ctx, obj, old)
}

// Validate checks a new cron job.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateCronJobCreate(obj.(*batchv1.CronJob))
}

// ValidateUpdate checks an update.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateCronJobUpdate(obj.(*batchv1.CronJob), old.(*batchv1.CronJob))
}

// WarningsOnCreate warns about names that are not DNS labels: they end up
// in pod hostnames.
func (Strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	cj := obj.(*batchv1.CronJob)
	if msgs := utilvalidation.IsDNS1123Label(cj.Name); len(msgs) != 0 {
		return []string{fmt.Sprintf("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: %v", msgs)}
	}
	return nil
}

// WarningsOnUpdate warns about a TZ prefix kept in the schedule.
func (Strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	if strings.Contains(obj.(*batchv1.CronJob).Spec.Schedule, "TZ") {
		return []string{fmt.Sprintf("cannot use TZ or CRON_TZ in %s, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details", field.NewPath("spec", "spec", "schedule"))}
	}
	return nil
}

// StatusStrategy writes cronjobs/status: the spec is kept and, as
// upstream, the status itself is not validated.
type StatusStrategy struct {
	rest.StatusSubresourceStrategy
}

// NewStatusStrategy returns the strategy of cronjobs/status.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// ValidateUpdate accepts any status.
func (StatusStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}
