package cronjob

import (
	"context"
	"sort"

	batchv1 "k8s.io/api/batch/v1"
)

// cleanupHistory deletes the oldest finished Jobs beyond
// successfulJobsHistoryLimit and failedJobsHistoryLimit.
func (c *Controller) cleanupHistory(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job) bool {
	if cj.Spec.SuccessfulJobsHistoryLimit == nil && cj.Spec.FailedJobsHistoryLimit == nil {
		return false
	}
	var succeeded, failed []*batchv1.Job
	for _, j := range jobs {
		switch done, cond := finishedCondition(j); {
		case done && cond == batchv1.JobComplete:
			succeeded = append(succeeded, j)
		case done && cond == batchv1.JobFailed:
			failed = append(failed, j)
		}
	}
	changed := false
	if l := cj.Spec.SuccessfulJobsHistoryLimit; l != nil && c.removeOldest(ctx, cj, succeeded, int(*l)) {
		changed = true
	}
	if l := cj.Spec.FailedJobsHistoryLimit; l != nil && c.removeOldest(ctx, cj, failed, int(*l)) {
		changed = true
	}
	return changed
}

// removeOldest keeps the limit most recently started Jobs; a Job that
// never started counts as oldest.
func (c *Controller) removeOldest(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job, limit int) bool {
	n := len(jobs) - limit
	if n <= 0 {
		return false
	}
	sort.SliceStable(jobs, func(a, b int) bool {
		sa, sb := jobs[a].Status.StartTime, jobs[b].Status.StartTime
		if sa == nil || sb == nil {
			return sa == nil && sb != nil
		}
		return sa.Before(sb)
	})
	changed := false
	for _, j := range jobs[:n] {
		if c.deleteJob(ctx, cj, j.Name, j.UID) == nil {
			changed = true
		}
	}
	return changed
}
