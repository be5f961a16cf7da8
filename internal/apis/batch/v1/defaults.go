package v1

import (
	"math"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	kapicorev1 "github.com/kapi-dev/kapi/internal/apis/core/v1"
)

// RegisterDefaults adds the defaulting functions of jobs and cron jobs (and
// their lists, item by item) to scheme.
func RegisterDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&batchv1.Job{}, func(obj any) { SetDefaultsJob(obj.(*batchv1.Job)) })
	scheme.AddTypeDefaultingFunc(&batchv1.JobList{}, func(obj any) {
		list := obj.(*batchv1.JobList)
		for i := range list.Items {
			SetDefaultsJob(&list.Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&batchv1.CronJob{}, func(obj any) { SetDefaultsCronJob(obj.(*batchv1.CronJob)) })
	scheme.AddTypeDefaultingFunc(&batchv1.CronJobList{}, func(obj any) {
		list := obj.(*batchv1.CronJobList)
		for i := range list.Items {
			SetDefaultsCronJob(&list.Items[i])
		}
	})
	return nil
}

// SetDefaultsJob fills a job's defaults as upstream does: a job that sets
// neither completions nor parallelism runs one pod to completion; the
// backoff limit is 6, or unlimited when a per-index limit applies; a job
// without labels takes its template's.
func SetDefaultsJob(job *batchv1.Job) {
	spec := &job.Spec
	if spec.Completions == nil && spec.Parallelism == nil {
		spec.Completions = ptr.To[int32](1)
	}
	if spec.Parallelism == nil {
		spec.Parallelism = ptr.To[int32](1)
	}
	if spec.BackoffLimit == nil {
		if spec.BackoffLimitPerIndex != nil {
			spec.BackoffLimit = ptr.To[int32](math.MaxInt32)
		} else {
			spec.BackoffLimit = ptr.To[int32](6)
		}
	}
	if spec.Template.Labels != nil && len(job.Labels) == 0 {
		job.Labels = spec.Template.Labels
	}
	if spec.CompletionMode == nil {
		spec.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	}
	if spec.Suspend == nil {
		spec.Suspend = ptr.To(false)
	}
	if spec.PodReplacementPolicy == nil {
		// Pods matched by a pod failure policy must be fully terminated
		// before they are replaced.
		if spec.PodFailurePolicy != nil {
			spec.PodReplacementPolicy = ptr.To(batchv1.Failed)
		} else {
			spec.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		}
	}
	if spec.ManualSelector == nil {
		spec.ManualSelector = ptr.To(false)
	}
	setDefaultsJobSpecParts(spec)
}

// SetDefaultsCronJob fills a cron job's defaults. The job template's own
// JobSpec fields are not defaulted (upstream defaults Job objects, not
// JobSpecs); its pod template and pod failure policy are.
func SetDefaultsCronJob(cj *batchv1.CronJob) {
	spec := &cj.Spec
	if spec.ConcurrencyPolicy == "" {
		spec.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if spec.Suspend == nil {
		spec.Suspend = ptr.To(false)
	}
	if spec.SuccessfulJobsHistoryLimit == nil {
		spec.SuccessfulJobsHistoryLimit = ptr.To[int32](3)
	}
	if spec.FailedJobsHistoryLimit == nil {
		spec.FailedJobsHistoryLimit = ptr.To[int32](1)
	}
	setDefaultsJobSpecParts(&spec.JobTemplate.Spec)
}

// setDefaultsJobSpecParts defaults the nested types of a job spec that
// have defaulters of their own: the pod template and the pod condition
// patterns of the failure policy (status True).
func setDefaultsJobSpecParts(spec *batchv1.JobSpec) {
	kapicorev1.SetDefaultsPodTemplateSpec(&spec.Template)
	if spec.PodFailurePolicy == nil {
		return
	}
	for i := range spec.PodFailurePolicy.Rules {
		patterns := spec.PodFailurePolicy.Rules[i].OnPodConditions
		for j := range patterns {
			if patterns[j].Status == "" {
				patterns[j].Status = corev1.ConditionTrue
			}
		}
	}
}
