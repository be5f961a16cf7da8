package job

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// TemplateColumns are the -o wide columns of jobs and cron jobs.
func TemplateColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
		{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
		{Name: "Selector", Type: "string", Priority: 1, Description: batchv1.JobSpec{}.SwaggerDoc()["selector"]},
	}
}

// TemplateCells fills TemplateColumns: container names and images, comma
// separated, and the selector.
func TemplateCells(containers []corev1.Container, selector *metav1.LabelSelector) []any {
	names := make([]string, 0, len(containers))
	images := make([]string, 0, len(containers))
	for _, c := range containers {
		names = append(names, c.Name)
		images = append(images, c.Image)
	}
	return []any{strings.Join(names, ","), strings.Join(images, ","), metav1.FormatLabelSelector(selector)}
}

// Table prints NAME STATUS COMPLETIONS DURATION AGE, and CONTAINERS IMAGES
// SELECTOR with -o wide.
func Table() *printers.Table[*batchv1.Job] {
	columns := append([]metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Status", Type: "string", Description: "Status of the job."},
		{Name: "Completions", Type: "string", Description: batchv1.JobStatus{}.SwaggerDoc()["succeeded"]},
		{Name: "Duration", Type: "string", Description: "Time required to complete the job."},
		printers.AgeColumn(),
	}, TemplateColumns()...)
	return printers.New(columns, cells)
}

func cells(job *batchv1.Job, now time.Time) []any {
	row := []any{job.Name, status(job), completions(job), jobDuration(job, now), printers.Age(job.CreationTimestamp, now)}
	return append(row, TemplateCells(job.Spec.Template.Spec.Containers, job.Spec.Selector)...)
}

func completions(job *batchv1.Job) string {
	if job.Spec.Completions != nil {
		return fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
	}
	if job.Spec.Parallelism != nil && *job.Spec.Parallelism > 1 {
		return fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, *job.Spec.Parallelism)
	}
	return fmt.Sprintf("%d/1", job.Status.Succeeded)
}

func jobDuration(job *batchv1.Job, now time.Time) string {
	switch {
	case job.Status.StartTime == nil:
		return ""
	case job.Status.CompletionTime == nil:
		return duration.HumanDuration(now.Sub(job.Status.StartTime.Time))
	default:
		return duration.HumanDuration(job.Status.CompletionTime.Sub(job.Status.StartTime.Time))
	}
}

// status is the first that applies, in upstream's order.
func status(job *batchv1.Job) string {
	switch {
	case hasCondition(job, batchv1.JobComplete):
		return "Complete"
	case hasCondition(job, batchv1.JobFailed):
		return "Failed"
	case job.DeletionTimestamp != nil:
		return "Terminating"
	case hasCondition(job, batchv1.JobSuspended):
		return "Suspended"
	case hasCondition(job, batchv1.JobFailureTarget):
		return "FailureTarget"
	case hasCondition(job, batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	default:
		return "Running"
	}
}

func hasCondition(job *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
