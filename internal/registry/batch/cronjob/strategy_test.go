package cronjob

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	kapibatchv1 "github.com/kapi-dev/kapi/internal/apis/batch/v1"
)

func newCronJob() *batchv1.CronJob {
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "ns", ResourceVersion: "1"},
		Spec: batchv1.CronJobSpec{
			Schedule: "*/5 * * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyOnFailure,
				Containers:    []corev1.Container{{Name: "hello", Image: "busybox"}},
			}}}},
		},
	}
	kapibatchv1.SetDefaultsCronJob(cj)
	return cj
}

func describe(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	slices.Sort(out)
	return out
}

func TestDefaults(t *testing.T) {
	cj := newCronJob()
	if cj.Spec.ConcurrencyPolicy != batchv1.AllowConcurrent || *cj.Spec.Suspend || *cj.Spec.SuccessfulJobsHistoryLimit != 3 || *cj.Spec.FailedJobsHistoryLimit != 1 {
		t.Errorf("defaults: %+v", cj.Spec)
	}
	if cj.Spec.JobTemplate.Spec.BackoffLimit != nil {
		t.Error("the job template's JobSpec fields must stay undefaulted")
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*batchv1.CronJob)
		want   []string
	}{
		{"valid", func(*batchv1.CronJob) {}, nil},
		{"descriptor", func(c *batchv1.CronJob) { c.Spec.Schedule = "@hourly" }, nil},
		{"time zone", func(c *batchv1.CronJob) { c.Spec.TimeZone = ptr.To("Europe/Paris") }, nil},
		{"no schedule", func(c *batchv1.CronJob) { c.Spec.Schedule = "" }, []string{"FieldValueRequired spec.schedule"}},
		{"bad schedule", func(c *batchv1.CronJob) { c.Spec.Schedule = "* * * *" }, []string{"FieldValueInvalid spec.schedule"}},
		{"TZ in schedule", func(c *batchv1.CronJob) { c.Spec.Schedule = "TZ=UTC * * * * *" }, []string{"FieldValueInvalid spec.schedule"}},
		{"unknown time zone", func(c *batchv1.CronJob) { c.Spec.TimeZone = ptr.To("Mars/Olympus") }, []string{"FieldValueInvalid spec.timeZone"}},
		{"Local time zone", func(c *batchv1.CronJob) { c.Spec.TimeZone = ptr.To("Local") }, []string{"FieldValueInvalid spec.timeZone"}},
		{"empty time zone", func(c *batchv1.CronJob) { c.Spec.TimeZone = ptr.To("") }, []string{"FieldValueInvalid spec.timeZone"}},
		{"concurrency policy", func(c *batchv1.CronJob) { c.Spec.ConcurrencyPolicy = "Sometimes" }, []string{"FieldValueNotSupported spec.concurrencyPolicy"}},
		{"negative limits", func(c *batchv1.CronJob) {
			c.Spec.SuccessfulJobsHistoryLimit, c.Spec.FailedJobsHistoryLimit, c.Spec.StartingDeadlineSeconds = ptr.To[int32](-1), ptr.To[int32](-1), ptr.To[int64](-1)
		}, []string{"FieldValueInvalid spec.failedJobsHistoryLimit", "FieldValueInvalid spec.startingDeadlineSeconds", "FieldValueInvalid spec.successfulJobsHistoryLimit"}},
		{"template selector", func(c *batchv1.CronJob) { c.Spec.JobTemplate.Spec.Selector = &metav1.LabelSelector{} },
			[]string{"FieldValueInvalid spec.jobTemplate.spec.selector"}},
		{"template manual selector", func(c *batchv1.CronJob) { c.Spec.JobTemplate.Spec.ManualSelector = ptr.To(true) },
			[]string{"FieldValueNotSupported spec.jobTemplate.spec.manualSelector"}},
		{"template restartPolicy", func(c *batchv1.CronJob) {
			c.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
		},
			[]string{"FieldValueRequired spec.jobTemplate.spec.template.spec.restartPolicy"}},
		{"long name", func(c *batchv1.CronJob) { c.Name = strings.Repeat("a", 53) }, []string{"FieldValueInvalid metadata.name"}},
	}
	s := NewStrategy(runtime.NewScheme())
	for _, tt := range tests {
		cj := newCronJob()
		tt.mutate(cj)
		s.PrepareForCreate(context.Background(), cj)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), cj))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestValidateUpdate(t *testing.T) {
	s := NewStrategy(runtime.NewScheme())
	tests := []struct {
		name             string
		oldSchedule      string
		mutate           func(*batchv1.CronJob)
		want             []string
		generationBumped bool
	}{
		{"new schedule", "*/5 * * * *", func(c *batchv1.CronJob) { c.Spec.Schedule = "0 * * * *" }, nil, true},
		{"labels only", "*/5 * * * *", func(c *batchv1.CronJob) { c.Labels = map[string]string{"a": "b"} }, nil, false},
		{"TZ added", "*/5 * * * *", func(c *batchv1.CronJob) { c.Spec.Schedule = "TZ=UTC 0 * * * *" }, []string{"FieldValueInvalid spec.schedule"}, true},
		{"stored TZ kept", "TZ=UTC 0 * * * *", func(c *batchv1.CronJob) { c.Spec.Suspend = ptr.To(true) }, nil, true},
		{"long name kept", "*/5 * * * *", func(c *batchv1.CronJob) {}, nil, false},
	}
	for _, tt := range tests {
		old := newCronJob()
		old.Spec.Schedule = tt.oldSchedule
		old.Generation = 4
		if tt.name == "long name kept" {
			old.Name = strings.Repeat("a", 60)
		}
		cj := old.DeepCopy()
		tt.mutate(cj)
		s.PrepareForUpdate(context.Background(), cj, old)
		if diff := cmp.Diff(tt.want, describe(s.ValidateUpdate(context.Background(), cj, old))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if bumped := cj.Generation == 5; bumped != tt.generationBumped {
			t.Errorf("%s: generation %d", tt.name, cj.Generation)
		}
	}
}

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)
	cj := newCronJob()
	cj.CreationTimestamp = metav1.NewTime(now.Add(-time.Hour))
	cj.Status.LastScheduleTime = &metav1.Time{Time: now.Add(-5 * time.Minute)}
	cj.Status.Active = []corev1.ObjectReference{{Name: "hello-1"}}
	table, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), cj, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"hello", "*/5 * * * *", "<none>", "False", int64(1), "5m", "60m", "hello", "busybox", "<none>"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	if n := len(table.ColumnDefinitions); n != 10 || table.ColumnDefinitions[5].Name != "Last Schedule" || table.ColumnDefinitions[7].Priority != 1 {
		t.Errorf("columns: %+v", table.ColumnDefinitions)
	}
}
