package job

import (
	"context"
	"slices"
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

func newJob() *batchv1.Job {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "ns", UID: "uid-1"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "pi", Image: "perl"}},
		}}},
	}
	kapibatchv1.SetDefaultsJob(job)
	return job
}

// describe renders errors as "Type path", sorted.
func describe(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Field)
	}
	slices.Sort(out)
	return out
}

func TestGenerateSelector(t *testing.T) {
	job := newJob()
	NewStrategy(runtime.NewScheme()).PrepareForCreate(context.Background(), job)
	wantLabels := map[string]string{
		"job-name": "pi", "batch.kubernetes.io/job-name": "pi",
		"controller-uid": "uid-1", "batch.kubernetes.io/controller-uid": "uid-1",
	}
	if diff := cmp.Diff(wantLabels, job.Spec.Template.Labels); diff != "" {
		t.Errorf("template labels (-want +got):\n%s", diff)
	}
	wantSelector := &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": "uid-1"}}
	if diff := cmp.Diff(wantSelector, job.Spec.Selector); diff != "" {
		t.Errorf("selector (-want +got):\n%s", diff)
	}
	if job.Generation != 1 {
		t.Errorf("generation = %d, want 1", job.Generation)
	}

	manual := newJob()
	manual.Spec.ManualSelector = ptr.To(true)
	NewStrategy(runtime.NewScheme()).PrepareForCreate(context.Background(), manual)
	if manual.Spec.Selector != nil || manual.Spec.Template.Labels != nil {
		t.Errorf("manual selector: generated %v / %v", manual.Spec.Selector, manual.Spec.Template.Labels)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*batchv1.Job)
		want   []string
	}{
		{"valid", func(*batchv1.Job) {}, nil},
		{"restartPolicy Always", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways },
			[]string{"FieldValueRequired spec.template.spec.restartPolicy"}},
		// The pod spec's own validation reports these too, as upstream.
		{"restartPolicy empty", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "" },
			[]string{"FieldValueRequired spec.template.spec.restartPolicy", "FieldValueRequired spec.template.spec.restartPolicy"}},
		{"restartPolicy unknown", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "Sometimes" },
			[]string{"FieldValueNotSupported spec.template.spec.restartPolicy", "FieldValueNotSupported spec.template.spec.restartPolicy"}},
		{"negative counts", func(j *batchv1.Job) {
			j.Spec.Parallelism, j.Spec.Completions, j.Spec.BackoffLimit = ptr.To[int32](-1), ptr.To[int32](-1), ptr.To[int32](-1)
		}, []string{"FieldValueInvalid spec.backoffLimit", "FieldValueInvalid spec.completions", "FieldValueInvalid spec.parallelism"}},
		{"negative activeDeadlineSeconds", func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptr.To[int64](-5) },
			[]string{"FieldValueInvalid spec.activeDeadlineSeconds"}},
		{"indexed without completions", func(j *batchv1.Job) {
			j.Spec.CompletionMode, j.Spec.Completions = ptr.To(batchv1.IndexedCompletion), nil
		}, []string{"FieldValueRequired spec.completions"}},
		{"per-index limit when not indexed", func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex = ptr.To[int32](1) },
			[]string{"FieldValueInvalid spec.backoffLimitPerIndex"}},
		{"unknown completion mode", func(j *batchv1.Job) { j.Spec.CompletionMode = ptr.To(batchv1.CompletionMode("Sometimes")) },
			[]string{"FieldValueNotSupported spec.completionMode"}},
		{"conflicting generated label", func(j *batchv1.Job) { j.Spec.Template.Labels = map[string]string{"controller-uid": "other"} },
			[]string{"FieldValueInvalid spec.template.metadata.labels[controller-uid]"}},
		{"manual without selector", func(j *batchv1.Job) { j.Spec.ManualSelector = ptr.To(true) },
			[]string{"FieldValueInvalid spec.template.metadata.labels", "FieldValueRequired spec.selector"}},
		{"manual selector not matching", func(j *batchv1.Job) {
			j.Spec.ManualSelector = ptr.To(true)
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
			j.Spec.Template.Labels = map[string]string{"app": "b"}
		}, []string{"FieldValueInvalid spec.template.metadata.labels"}},
		{"bad name", func(j *batchv1.Job) { j.Name = "Pi" }, []string{"FieldValueInvalid metadata.name"}},
	}
	s := NewStrategy(runtime.NewScheme())
	for _, tt := range tests {
		job := newJob()
		tt.mutate(job)
		s.PrepareForCreate(context.Background(), job)
		if diff := cmp.Diff(tt.want, describe(s.Validate(context.Background(), job))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestValidateUpdate(t *testing.T) {
	s := NewStrategy(runtime.NewScheme())
	created := func(suspend bool) *batchv1.Job {
		job := newJob()
		job.Spec.Suspend = ptr.To(suspend)
		s.PrepareForCreate(context.Background(), job)
		return job
	}
	tests := []struct {
		name    string
		suspend bool
		started bool
		mutate  func(*batchv1.Job)
		want    []string
	}{
		{"parallelism is mutable", false, false, func(j *batchv1.Job) { j.Spec.Parallelism = ptr.To[int32](3) }, nil},
		{"completions", false, false, func(j *batchv1.Job) { j.Spec.Completions = ptr.To[int32](3) }, []string{"FieldValueInvalid spec.completions"}},
		{"template image", false, false, func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Image = "perl:6" }, []string{"FieldValueInvalid spec.template"}},
		{"selector", false, false, func(j *batchv1.Job) { j.Spec.Selector.MatchLabels["x"] = "y" },
			[]string{"FieldValueInvalid spec.selector", "FieldValueInvalid spec.selector", "FieldValueInvalid spec.template.metadata.labels"}},
		{"completionMode", false, false, func(j *batchv1.Job) { j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion) },
			[]string{"FieldValueInvalid spec.completionMode"}},
		{"node selector of a running job", false, false, func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"} },
			[]string{"FieldValueInvalid spec.template"}},
		{"node selector of a suspended job", true, false, func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"} }, nil},
		{"node selector of a suspended job that started", true, true, func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"zone": "a"} },
			[]string{"FieldValueInvalid spec.template"}},
		{"image of a suspended job", true, false, func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Image = "perl:6" },
			[]string{"FieldValueInvalid spec.template"}},
	}
	for _, tt := range tests {
		old := created(tt.suspend)
		old.ResourceVersion = "1"
		if tt.started {
			old.Status.StartTime = &metav1.Time{Time: time.Now()}
		}
		job := old.DeepCopy()
		tt.mutate(job)
		s.PrepareForUpdate(context.Background(), job, old)
		if diff := cmp.Diff(tt.want, describe(s.ValidateUpdate(context.Background(), job, old))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestGetAttrs(t *testing.T) {
	job := newJob()
	job.Status.Succeeded = 2
	_, fs, err := GetAttrs(job)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"metadata.name": "pi", "metadata.namespace": "ns", "status.successful": "2"}
	if diff := cmp.Diff(want, map[string]string(fs)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestTable(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	start := metav1.NewTime(now.Add(-5 * time.Minute))
	job := newJob()
	job.CreationTimestamp = metav1.NewTime(now.Add(-10 * time.Minute))
	job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
	job.Status.StartTime = &start
	job.Status.Succeeded = 1
	job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	job.Status.CompletionTime = &metav1.Time{Time: now.Add(-3 * time.Minute)}
	table, err := Table().WithClock(func() time.Time { return now }).ConvertToTable(context.Background(), job, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"pi", "Complete", "1/1", "2m", "10m", "pi", "perl", "a=b"}
	if diff := cmp.Diff(want, table.Rows[0].Cells); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		if c.Priority == 0 {
			names = append(names, c.Name)
		}
	}
	if diff := cmp.Diff([]string{"Name", "Status", "Completions", "Duration", "Age"}, names); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	job.Spec.Completions, job.Spec.Parallelism = nil, ptr.To[int32](3)
	job.Status.Conditions = nil
	if got := completions(job); got != "1/1 of 3" {
		t.Errorf("completions = %q", got)
	}
	if got := status(job); got != "Running" {
		t.Errorf("status = %q", got)
	}
}
