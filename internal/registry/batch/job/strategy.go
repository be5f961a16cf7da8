// Package job is the REST storage of batch/v1 jobs: the strategy (a
// selector and pod labels generated from the job's uid, status reset,
// generation, the template immutable outside suspension), the status
// subresource and the table kubectl prints.
package job

import (
	"context"
	"fmt"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kapi-dev/kapi/internal/apis/batch/validation"
	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// Strategy says how jobs are written. It embeds rest.SpecStatusStrategy:
// status is dropped on create and kept on update, generation starts at 1
// and follows spec changes.
type Strategy struct {
	rest.SpecStatusStrategy
}

var (
	_ rest.GarbageCollectionDeleteStrategy = Strategy{}
	_ rest.RESTCreateStrategy              = Strategy{}
	_ rest.RESTUpdateStrategy              = Strategy{}
	_ rest.ResetFieldsStrategy             = Strategy{}
)

// NewStrategy returns the job strategy; typer is the server's scheme.
func NewStrategy(typer runtime.ObjectTyper) Strategy {
	return Strategy{rest.SpecStatusStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// DefaultGarbageCollectionPolicy orphans the pods of a job deleted through
// batch/v1 without a propagation policy, as upstream keeps for
// compatibility (kubectl asks for Background explicitly).
func (Strategy) DefaultGarbageCollectionPolicy(ctx context.Context) rest.GarbageCollectionPolicy {
	return rest.OrphanInGroupVersions(ctx, batchv1.SchemeGroupVersion)
}

// PrepareForCreate generates the selector and pod labels (unless the
// selector is manual), resets status, sets generation 1 and drops the
// alpha scheduling field.
func (s Strategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	job := obj.(*batchv1.Job)
	if job.Spec.ManualSelector == nil || !*job.Spec.ManualSelector {
		GenerateSelector(job)
	}
	s.SpecStatusStrategy.PrepareForCreate(ctx, obj)
	// WorkloadWithJob is an alpha feature, off as upstream's gate is.
	job.Spec.Scheduling = nil
}

// PrepareForUpdate keeps status and bumps generation on spec changes; the
// alpha scheduling field is only kept when the stored job has it.
func (s Strategy) PrepareForUpdate(ctx context.Context, obj, old runtime.Object) {
	job, oldJob := obj.(*batchv1.Job), old.(*batchv1.Job)
	if oldJob.Spec.Scheduling == nil {
		job.Spec.Scheduling = nil
	}
	s.SpecStatusStrategy.PrepareForUpdate(ctx, obj, old)
}

// GenerateSelector labels the pod template with the job's name and uid,
// under both the batch.kubernetes.io and the legacy keys, and selects the
// uid label. Labels the user set are kept; validation rejects conflicts.
func GenerateSelector(job *batchv1.Job) {
	if job.Spec.Template.Labels == nil {
		job.Spec.Template.Labels = map[string]string{}
	}
	generated := []struct{ key, value string }{
		{validation.LegacyJobNameLabel, job.Name},
		{batchv1.JobNameLabel, job.Name},
		{validation.LegacyControllerUidLabel, string(job.UID)},
		{batchv1.ControllerUidLabel, string(job.UID)},
	}
	for _, l := range generated {
		if _, found := job.Spec.Template.Labels[l.key]; !found {
			job.Spec.Template.Labels[l.key] = l.value
		}
	}
	if job.Spec.Selector == nil {
		job.Spec.Selector = &metav1.LabelSelector{}
	}
	if job.Spec.Selector.MatchLabels == nil {
		job.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, found := job.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !found {
		job.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(job.UID)
	}
}

// Validate checks a new job.
func (Strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateJob(obj.(*batchv1.Job), validation.JobOptions{RequirePrefixedLabels: true})
}

// ValidateUpdate checks an update with the relaxations the stored job
// earns.
func (Strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	job, oldJob := obj.(*batchv1.Job), old.(*batchv1.Job)
	return validation.ValidateJobUpdate(job, oldJob, updateOptions(oldJob))
}

// updateOptions: a suspended job that never started may change its
// scheduling directives; jobs stored without the prefixed labels are not
// required to have them.
func updateOptions(old *batchv1.Job) validation.JobOptions {
	_, hadName := old.Spec.Template.Labels[batchv1.JobNameLabel]
	_, hadUID := old.Spec.Template.Labels[batchv1.ControllerUidLabel]
	return validation.JobOptions{
		RequirePrefixedLabels:            hadName && hadUID,
		AllowMutableSchedulingDirectives: old.Spec.Suspend != nil && *old.Spec.Suspend && old.Status.StartTime == nil,
		AllowInvalidLabelValueInSelector: metav1validation.LabelSelectorHasInvalidLabelValue(old.Spec.Selector),
	}
}

// WarningsOnCreate warns about names that are not DNS labels: they end up
// in pod hostnames.
func (Strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	job := obj.(*batchv1.Job)
	if msgs := utilvalidation.IsDNS1123Label(job.Name); len(msgs) != 0 {
		return []string{fmt.Sprintf("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: %v", msgs)}
	}
	return nil
}

// StatusStrategy writes jobs/status: the spec is kept.
type StatusStrategy struct {
	rest.StatusSubresourceStrategy
}

// ValidateUpdate checks the status write.
func (StatusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateJobStatusUpdate(obj.(*batchv1.Job), old.(*batchv1.Job))
}

// NewStatusStrategy returns the strategy of jobs/status.
func NewStatusStrategy(typer runtime.ObjectTyper) StatusStrategy {
	return StatusStrategy{rest.StatusSubresourceStrategy{DefaultStrategy: rest.DefaultStrategy{ObjectTyper: typer}}}
}

// GetAttrs returns a job's labels and selectable fields: the metadata
// ones and status.successful.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	job, ok := obj.(*batchv1.Job)
	if !ok {
		return nil, nil, fmt.Errorf("not a job: %T", obj)
	}
	ls, fs, err := generic.DefaultNamespaceScopedAttr(job)
	if err != nil {
		return nil, nil, err
	}
	fs["status.successful"] = strconv.Itoa(int(job.Status.Succeeded))
	return ls, fs, nil
}
