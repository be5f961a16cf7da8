package cronjob

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
)

// maxMissedSchedules is where upstream stops listing missed start times
// and warns instead (TooManyMissedTimes).
const maxMissedSchedules = 100

var errNoInterval = errors.New("time difference between two schedules is less than 1 second")

// nextScheduleDelta is added to a requeue so the sync runs just after the
// scheduled time, not just before it.
const nextScheduleDelta = 100 * time.Millisecond

// scheduleSpec is the schedule robfig/cron parses: spec.timeZone becomes
// its TZ= prefix. A TZ or CRON_TZ the user wrote in the schedule works
// but is not supported upstream, which says so with an event.
func scheduleSpec(cj *batchv1.CronJob, recorder events.EventRecorder) string {
	if strings.Contains(cj.Spec.Schedule, "TZ") {
		if recorder != nil {
			recorder.Eventf(cj, nil, corev1.EventTypeWarning, "UnsupportedSchedule", "Schedule",
				"CRON_TZ or TZ used in schedule %q is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details", cj.Spec.Schedule)
		}
		return cj.Spec.Schedule
	}
	if cj.Spec.TimeZone != nil {
		if _, err := time.LoadLocation(*cj.Spec.TimeZone); err != nil {
			return cj.Spec.Schedule
		}
		return fmt.Sprintf("TZ=%s %s", *cj.Spec.TimeZone, cj.Spec.Schedule)
	}
	return cj.Spec.Schedule
}

// earliest is where counting scheduled times starts: the last one used,
// else the CronJob's creation.
func earliest(cj *batchv1.CronJob) time.Time {
	if cj.Status.LastScheduleTime != nil {
		return cj.Status.LastScheduleTime.Time
	}
	return cj.CreationTimestamp.Time
}

// mostRecent returns the latest scheduled time in (earliest, now] and how
// many were missed, never walking more than a bounded number of times.
// With a starting deadline, times before now-deadline are not counted.
func mostRecent(cj *batchv1.CronJob, now time.Time, sched cron.Schedule, useDeadline bool) (*time.Time, int64, error) {
	from := earliest(cj)
	if useDeadline && cj.Spec.StartingDeadlineSeconds != nil {
		if d := now.Add(-time.Duration(*cj.Spec.StartingDeadlineSeconds) * time.Second); d.After(from) {
			from = d
		}
	}
	t1 := sched.Next(from)
	if t1.IsZero() {
		// The parser finds no time in the years it searches (such as
		// February 31st): upstream reports it as an invalid schedule.
		return nil, 0, errNoInterval
	}
	if now.Before(t1) {
		return nil, 0, nil
	}
	t2 := sched.Next(t1)
	if now.Before(t2) {
		return &t1, 1, nil
	}
	step := int64(t2.Sub(t1).Round(time.Second).Seconds())
	if step < 1 {
		return nil, 0, errNoInterval
	}
	missed := int64(now.Sub(t1).Seconds())/step + 1
	// Jump close to now, then let the schedule find the exact latest
	// time (schedules need not be evenly spaced).
	var latest time.Time
	start := t1.Add(time.Duration((missed-2)*step) * time.Second)
	for t := sched.Next(start); !t.IsZero() && !t.After(now); t = sched.Next(t) {
		latest = t
	}
	if latest.IsZero() {
		latest = t1
	}
	return &latest, missed, nil
}

// requeueAfter is the wait until the next scheduled time after now.
func requeueAfter(cj *batchv1.CronJob, now time.Time, sched cron.Schedule) time.Duration {
	from := earliest(cj)
	if t, _, err := mostRecent(cj, now, sched, false); err == nil && t != nil {
		from = *t
	}
	return sched.Next(from).Add(nextScheduleDelta).Sub(now)
}

// jobName is deterministic per scheduled time: <cronjob>-<minutes since
// the epoch>, so one time never makes two Jobs.
func jobName(cj *batchv1.CronJob, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, scheduled.Unix()/60)
}

// jobFromTemplate is the Job for scheduled: the template's labels and
// annotations, the scheduled-timestamp annotation in the CronJob's time
// zone, and the CronJob as controller.
func jobFromTemplate(cj *batchv1.CronJob, scheduled time.Time) (*batchv1.Job, error) {
	loc, err := time.LoadLocation(ptrDeref(cj.Spec.TimeZone))
	if err != nil {
		return nil, err
	}
	labels := map[string]string{}
	for k, v := range cj.Spec.JobTemplate.Labels {
		labels[k] = v
	}
	annotations := map[string]string{}
	for k, v := range cj.Spec.JobTemplate.Annotations {
		annotations[k] = v
	}
	annotations[batchv1.CronJobScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{
		Name: jobName(cj, scheduled), Namespace: cj.Namespace, Labels: labels, Annotations: annotations,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, cronJobKind)},
	}}
	cj.Spec.JobTemplate.Spec.DeepCopyInto(&job.Spec)
	return job, nil
}

func ptrDeref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
