package cronjob

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/controllers/controllertest"
)

// t0 is a Saturday, 00:00 UTC.
var t0 = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

type harness struct {
	t       *testing.T
	client  *fake.Clientset
	factory informers.SharedInformerFactory
	clock   *clocktesting.FakeClock
	rec     *events.FakeRecorder
	c       *Controller
}

func newHarness(t *testing.T) *harness {
	client := controllertest.NewClientset(controllertest.ServerDefaults{})
	factory := informers.NewSharedInformerFactory(client, 0)
	clk := clocktesting.NewFakeClock(t0)
	rec := events.NewFakeRecorder(1000)
	c, err := New(client, factory.Batch().V1().CronJobs(), factory.Batch().V1().Jobs(), rec, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.queue.ShutDown)
	return &harness{t: t, client: client, factory: factory, clock: clk, rec: rec, c: c}
}

func (h *harness) refresh() {
	h.t.Helper()
	ctx := context.Background()
	cjs, err := h.client.BatchV1().CronJobs("").List(ctx, metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	controllertest.Replace(h.t, h.factory.Batch().V1().CronJobs().Informer(), cjs.Items)
	jobs, err := h.client.BatchV1().Jobs("").List(ctx, metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	controllertest.Replace(h.t, h.factory.Batch().V1().Jobs().Informer(), jobs.Items)
}

func (h *harness) sync() *batchv1.CronJob {
	h.t.Helper()
	h.refresh()
	if err := h.c.Sync(context.Background(), "ns/cj"); err != nil {
		h.t.Fatal(err)
	}
	cj, err := h.client.BatchV1().CronJobs("ns").Get(context.Background(), "cj", metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return cj
}

func (h *harness) create(spec batchv1.CronJobSpec) {
	h.t.Helper()
	if spec.ConcurrencyPolicy == "" {
		spec.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	spec.JobTemplate.Labels = map[string]string{"app": "x"}
	spec.JobTemplate.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox"}}
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "cj", Namespace: "ns", CreationTimestamp: metav1.NewTime(t0)}, Spec: spec}
	if _, err := h.client.BatchV1().CronJobs("ns").Create(context.Background(), cj, metav1.CreateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) jobs() []batchv1.Job {
	h.t.Helper()
	list, err := h.client.BatchV1().Jobs("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return list.Items
}

func (h *harness) events() []string {
	var out []string
	for {
		select {
		case e := <-h.rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func hasEvent(evs []string, prefix string) bool {
	for _, e := range evs {
		if strings.HasPrefix(e, prefix) {
			return true
		}
	}
	return false
}

// TestEveryMinute: "* * * * *" creates nothing before the first minute
// (and asks to be woken just after it), then the Job
// <cronjob>-<minutes since the epoch> with the template's labels, the
// scheduled-timestamp annotation and the CronJob as controller.
func TestEveryMinute(t *testing.T) {
	h := newHarness(t)
	h.create(batchv1.CronJobSpec{Schedule: "* * * * *"})
	h.clock.Step(30 * time.Second)
	if h.sync(); len(h.jobs()) != 0 {
		t.Fatal("a job before its time")
	}
	h.clock.Step(31 * time.Second)
	cj := h.sync()
	jobs := h.jobs()
	scheduled := t0.Add(time.Minute)
	if len(jobs) != 1 {
		t.Fatalf("%d jobs", len(jobs))
	}
	j := jobs[0]
	if j.Name != fmt.Sprintf("cj-%d", scheduled.Unix()/60) || j.Labels["app"] != "x" ||
		j.Annotations[batchv1.CronJobScheduledTimestampAnnotation] != "2026-11-28T00:01:00Z" || !metav1.IsControlledBy(&j, cj) {
		t.Fatalf("job %+v", j.ObjectMeta)
	}
	if len(cj.Status.Active) != 1 || cj.Status.Active[0].Name != j.Name || !cj.Status.LastScheduleTime.Time.Equal(scheduled) {
		t.Fatalf("status %+v", cj.Status)
	}
	if evs := h.events(); !hasEvent(evs, "Normal SuccessfulCreate Created job "+j.Name) {
		t.Fatalf("events %q", evs)
	}
	// Synced again in the same minute: nothing new.
	if h.sync(); len(h.jobs()) != 1 {
		t.Fatal("a second job for the same time")
	}
}

// TestConcurrencyPolicy: with a Job still active at the next time, Allow
// adds one, Forbid skips with JobAlreadyActive, Replace deletes the
// running one first.
func TestConcurrencyPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy batchv1.ConcurrencyPolicy
		jobs   int
		active int
		event  string
	}{
		{batchv1.AllowConcurrent, 2, 2, "Normal SuccessfulCreate"},
		{batchv1.ForbidConcurrent, 1, 1, "Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid"},
		{batchv1.ReplaceConcurrent, 1, 1, "Normal SuccessfulDelete Deleted job cj-"},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			h := newHarness(t)
			h.create(batchv1.CronJobSpec{Schedule: "@hourly", ConcurrencyPolicy: tc.policy})
			h.clock.Step(time.Hour + time.Second)
			h.sync()
			h.events()
			h.clock.Step(time.Hour)
			cj := h.sync()
			if len(h.jobs()) != tc.jobs || len(cj.Status.Active) != tc.active {
				t.Fatalf("%d jobs, status %+v", len(h.jobs()), cj.Status)
			}
			if evs := h.events(); !hasEvent(evs, tc.event) {
				t.Fatalf("events %q", evs)
			}
		})
	}
}

// TestTimeZone: "0 9 * * *" in America/New_York runs at 14:00 UTC in
// November, and the annotation carries the zone's offset.
func TestTimeZone(t *testing.T) {
	h := newHarness(t)
	h.create(batchv1.CronJobSpec{Schedule: "0 9 * * *", TimeZone: ptr.To("America/New_York")})
	h.clock.SetTime(t0.Add(14*time.Hour - time.Second))
	if h.sync(); len(h.jobs()) != 0 {
		t.Fatal("ran before 9:00 in New York")
	}
	h.clock.SetTime(t0.Add(14*time.Hour + time.Second))
	h.sync()
	jobs := h.jobs()
	if len(jobs) != 1 || jobs[0].Annotations[batchv1.CronJobScheduledTimestampAnnotation] != "2026-11-28T09:00:00-05:00" {
		t.Fatalf("jobs %+v", jobs)
	}
}

// TestMissedSchedules: a missed time older than startingDeadlineSeconds
// is not started; more than 100 missed times warn TooManyMissedTimes and
// only the most recent one is started.
func TestMissedSchedules(t *testing.T) {
	h := newHarness(t)
	h.create(batchv1.CronJobSpec{Schedule: "0 * * * *", StartingDeadlineSeconds: ptr.To[int64](60)})
	h.clock.SetTime(t0.Add(90 * time.Minute))
	if h.sync(); len(h.jobs()) != 0 {
		t.Fatal("started past its deadline")
	}

	h = newHarness(t)
	h.create(batchv1.CronJobSpec{Schedule: "* * * * *"})
	h.clock.SetTime(t0.Add(200*time.Minute + 30*time.Second))
	cj := h.sync()
	if evs := h.events(); !hasEvent(evs, "Warning TooManyMissedTimes too many missed start times: 200.") {
		t.Fatalf("events %q", evs)
	}
	if len(h.jobs()) != 1 || !cj.Status.LastScheduleTime.Time.Equal(t0.Add(200*time.Minute)) {
		t.Fatalf("status %+v", cj.Status)
	}
}

// TestFinishedJobsAndHistory: a completed Job leaves status.active with
// SawCompletedJob and sets lastSuccessfulTime; beyond
// successfulJobsHistoryLimit the oldest are deleted.
func TestFinishedJobsAndHistory(t *testing.T) {
	h := newHarness(t)
	h.create(batchv1.CronJobSpec{Schedule: "@hourly", SuccessfulJobsHistoryLimit: ptr.To[int32](1)})
	for i := 1; i <= 3; i++ {
		h.clock.SetTime(t0.Add(time.Duration(i)*time.Hour + time.Second))
		h.sync()
		for _, j := range h.jobs() {
			if done, _ := finishedCondition(&j); done {
				continue
			}
			start, end := metav1.NewTime(h.clock.Now()), metav1.NewTime(h.clock.Now().Add(time.Second))
			j.Status.StartTime, j.Status.CompletionTime = &start, &end
			j.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
			if _, err := h.client.BatchV1().Jobs("ns").UpdateStatus(context.Background(), &j, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	cj := h.sync()
	jobs := h.jobs()
	if len(jobs) != 1 || len(cj.Status.Active) != 0 || cj.Status.LastSuccessfulTime == nil ||
		!cj.Status.LastSuccessfulTime.Time.Equal(t0.Add(3*time.Hour+2*time.Second)) {
		t.Fatalf("%d jobs, status %+v", len(jobs), cj.Status)
	}
	if evs := h.events(); !hasEvent(evs, "Normal SawCompletedJob Saw completed job: cj-") || !hasEvent(evs, "Normal SuccessfulDelete Deleted job cj-") {
		t.Fatalf("events %q", evs)
	}
}

// TestNotScheduled: suspended, an unknown time zone (UnknownTimeZone),
// an unparseable schedule (UnparseableSchedule) and one that never comes
// (InvalidSchedule) create nothing.
func TestNotScheduled(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spec  batchv1.CronJobSpec
		event string
	}{
		{"suspended", batchv1.CronJobSpec{Schedule: "* * * * *", Suspend: ptr.To(true)}, ""},
		{"timezone", batchv1.CronJobSpec{Schedule: "* * * * *", TimeZone: ptr.To("Mars/Olympus")}, "Warning UnknownTimeZone invalid timeZone: \"Mars/Olympus\""},
		{"schedule", batchv1.CronJobSpec{Schedule: "61 * * * *"}, "Warning UnparseableSchedule unparseable schedule: \"61 * * * *\""},
		{"never", batchv1.CronJobSpec{Schedule: "0 0 31 2 *"}, "Warning InvalidSchedule invalid schedule: 0 0 31 2 * : time difference between two schedules is less than 1 second"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.create(tc.spec)
			h.clock.Step(2 * time.Minute)
			h.sync()
			if len(h.jobs()) != 0 {
				t.Fatal("a job was created")
			}
			if evs := h.events(); tc.event != "" && !hasEvent(evs, tc.event) {
				t.Fatalf("events %q", evs)
			}
		})
	}
}

// TestRequeueAfter: the CronJob is woken just after its next time.
func TestRequeueAfter(t *testing.T) {
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(t0)}, Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *"}}
	sched, err := cron.ParseStandard(cj.Spec.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		now  time.Duration
		last *time.Duration
		want time.Duration
	}{
		{now: 30 * time.Second, want: 4*time.Minute + 30*time.Second + nextScheduleDelta},
		{now: 5 * time.Minute, want: 5*time.Minute + nextScheduleDelta},
		{now: 7 * time.Minute, last: ptr.To(5 * time.Minute), want: 3*time.Minute + nextScheduleDelta},
	} {
		c := cj.DeepCopy()
		if tc.last != nil {
			c.Status.LastScheduleTime = &metav1.Time{Time: t0.Add(*tc.last)}
		}
		if got := requeueAfter(c, t0.Add(tc.now), sched); got != tc.want {
			t.Errorf("at +%v: %v, want %v", tc.now, got, tc.want)
		}
	}
}
