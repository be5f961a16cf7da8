package cronjob

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/internal/registry/batch/job"
	"github.com/kapi-dev/kapi/internal/registry/printers"
)

// Table prints NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE, and
// CONTAINERS IMAGES SELECTOR of the job template with -o wide.
func Table() *printers.Table[*batchv1.CronJob] {
	spec, status := batchv1.CronJobSpec{}.SwaggerDoc(), batchv1.CronJobStatus{}.SwaggerDoc()
	columns := append([]metav1.TableColumnDefinition{
		printers.NameColumn(),
		{Name: "Schedule", Type: "string", Description: spec["schedule"]},
		{Name: "Timezone", Type: "string", Description: spec["timeZone"]},
		{Name: "Suspend", Type: "boolean", Description: spec["suspend"]},
		{Name: "Active", Type: "integer", Description: status["active"]},
		{Name: "Last Schedule", Type: "string", Description: status["lastScheduleTime"]},
		printers.AgeColumn(),
	}, job.TemplateColumns()...)
	return printers.New(columns, cells)
}

func cells(cj *batchv1.CronJob, now time.Time) []any {
	lastSchedule := "<none>"
	if cj.Status.LastScheduleTime != nil {
		lastSchedule = printers.Age(*cj.Status.LastScheduleTime, now)
	}
	timeZone := "<none>"
	if cj.Spec.TimeZone != nil {
		timeZone = *cj.Spec.TimeZone
	}
	suspend := "<unset>"
	if cj.Spec.Suspend != nil {
		suspend = "False"
		if *cj.Spec.Suspend {
			suspend = "True"
		}
	}
	row := []any{cj.Name, cj.Spec.Schedule, timeZone, suspend, int64(len(cj.Status.Active)), lastSchedule, printers.Age(cj.CreationTimestamp, now)}
	tmpl := &cj.Spec.JobTemplate.Spec
	return append(row, job.TemplateCells(tmpl.Template.Spec.Containers, tmpl.Selector)...)
}
