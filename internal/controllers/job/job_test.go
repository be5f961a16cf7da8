package job

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestCompletionsAndParallelism: completions 3, parallelism 2 runs two
// Pods at a time, owned by the Job with its labels and the tracking
// finalizer; each success is counted through uncountedTerminatedPods and
// its finalizer removed; the last one sets SuccessCriteriaMet, then
// Complete with completionTime and the Completed event.
func TestCompletionsAndParallelism(t *testing.T) {
	h := newHarness(t)
	job := h.createJob(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi"},
		Spec: batchv1.JobSpec{Completions: ptr.To[int32](3), Parallelism: ptr.To[int32](2)}})
	got := h.sync("pi")
	pods := h.pods()
	if len(pods) != 2 || got.Status.Active != 2 || *got.Status.Ready != 0 || *got.Status.Terminating != 0 || got.Status.StartTime == nil {
		t.Fatalf("pods %d, status %+v", len(pods), got.Status)
	}
	if got.Status.UncountedTerminatedPods == nil {
		t.Fatal("uncountedTerminatedPods not set")
	}
	p := pods[0]
	ref := metav1.GetControllerOf(&p)
	if ref == nil || ref.UID != job.UID || ref.Kind != "Job" || !*ref.BlockOwnerDeletion {
		t.Fatalf("owner %+v", ref)
	}
	if p.GenerateName != "pi-" || !hasFinalizer(&p) || p.Labels[batchv1.JobNameLabel] != "pi" || p.Labels[batchv1.ControllerUidLabel] != string(job.UID) {
		t.Fatalf("pod %+v", p.ObjectMeta)
	}
	if evs := h.events(); len(evs) != 2 || !hasEvent(evs, "Normal SuccessfulCreate Created pod: pi-") {
		t.Fatalf("events %q", evs)
	}

	h.setPhase(pods[0].Name, corev1.PodSucceeded, 0)
	got = h.sync("pi")
	if got.Status.Succeeded != 1 || got.Status.Active != 2 || len(h.pods()) != 3 {
		t.Fatalf("after one success: %+v, %d pods", got.Status, len(h.pods()))
	}
	if hasFinalizer(&h.pods()[0]) {
		t.Fatal("finalizer of the counted pod kept")
	}
	for _, p := range h.pods()[1:] {
		h.setPhase(p.Name, corev1.PodSucceeded, 0)
	}
	got = h.sync("pi")
	if got.Status.Succeeded != 3 || got.Status.Active != 0 || got.Status.CompletionTime == nil {
		t.Fatalf("status %+v", got.Status)
	}
	scm, complete := condition(got, batchv1.JobSuccessCriteriaMet), condition(got, batchv1.JobComplete)
	if scm == nil || scm.Reason != batchv1.JobReasonCompletionsReached || complete == nil || complete.Status != corev1.ConditionTrue ||
		complete.Message != "Reached expected number of succeeded pods" {
		t.Fatalf("conditions %+v", got.Status.Conditions)
	}
	if evs := h.events(); !hasEvent(evs, "Normal Completed Job completed") {
		t.Fatalf("events %q", evs)
	}
	if n := len(h.pods()); n != 3 {
		t.Fatalf("%d pods after completion", n)
	}
}

// TestBackoffLimit: a failed Pod is replaced only after the 10s back-off;
// a failure beyond backoffLimit fails the Job with BackoffLimitExceeded.
func TestBackoffLimit(t *testing.T) {
	h := newHarness(t)
	h.createJob(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Spec: batchv1.JobSpec{Completions: ptr.To[int32](1), BackoffLimit: ptr.To[int32](1)}})
	h.sync("b")
	h.setPhase(h.pods()[0].Name, corev1.PodFailed, 1)
	got := h.sync("b")
	if got.Status.Failed != 1 || got.Status.Active != 0 || len(h.pods()) != 1 {
		t.Fatalf("after a failure: %+v, %d pods", got.Status, len(h.pods()))
	}
	h.clock.Step(5 * time.Second)
	if h.sync("b"); len(h.pods()) != 1 {
		t.Fatal("replaced before the back-off passed")
	}
	h.clock.Step(6 * time.Second)
	if got = h.sync("b"); len(h.pods()) != 2 || got.Status.Active != 1 {
		t.Fatalf("not replaced after the back-off: %+v", got.Status)
	}
	h.setPhase(h.pods()[1].Name, corev1.PodFailed, 1)
	got = h.sync("b")
	ft, failed := condition(got, batchv1.JobFailureTarget), condition(got, batchv1.JobFailed)
	if got.Status.Failed != 2 || ft == nil || failed == nil || failed.Reason != batchv1.JobReasonBackoffLimitExceeded ||
		failed.Message != "Job has reached the specified backoff limit" || got.Status.CompletionTime != nil {
		t.Fatalf("status %+v", got.Status)
	}
	if evs := h.events(); !hasEvent(evs, "Warning BackoffLimitExceeded Job has reached the specified backoff limit") {
		t.Fatalf("events %q", evs)
	}
}

// TestActiveDeadline: past activeDeadlineSeconds the active Pods are
// deleted (and counted failed) and the Job fails with DeadlineExceeded.
func TestActiveDeadline(t *testing.T) {
	h := newHarness(t)
	h.createJob(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "d"},
		Spec: batchv1.JobSpec{Completions: ptr.To[int32](1), ActiveDeadlineSeconds: ptr.To[int64](30)}})
	h.sync("d")
	h.clock.Step(31 * time.Second)
	got := h.sync("d")
	// The deleted Pod is terminating in that sync: FailureTarget first.
	if condition(got, batchv1.JobFailureTarget) == nil || condition(got, batchv1.JobFailed) != nil {
		t.Fatalf("conditions %+v", got.Status.Conditions)
	}
	got = h.sync("d")
	failed := condition(got, batchv1.JobFailed)
	if failed == nil || failed.Reason != batchv1.JobReasonDeadlineExceeded || failed.Message != "Job was active longer than specified deadline" ||
		got.Status.Active != 0 || got.Status.Failed != 1 || len(h.pods()) != 0 {
		t.Fatalf("status %+v, %d pods", got.Status, len(h.pods()))
	}
}

// TestSuspendResume: a suspended Job creates nothing and has no start
// time; resuming creates its Pods, flips the condition and restarts the
// clock; suspending again deletes the active Pods without counting them.
func TestSuspendResume(t *testing.T) {
	h := newHarness(t)
	h.createJob(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Spec: batchv1.JobSpec{Completions: ptr.To[int32](2), Parallelism: ptr.To[int32](2), Suspend: ptr.To(true)}})
	got := h.sync("s")
	c := condition(got, batchv1.JobSuspended)
	if len(h.pods()) != 0 || got.Status.StartTime != nil || c == nil || c.Status != corev1.ConditionTrue || c.Reason != "JobSuspended" {
		t.Fatalf("suspended: %+v", got.Status)
	}
	if evs := h.events(); !hasEvent(evs, "Normal Suspended Job suspended") {
		t.Fatalf("events %q", evs)
	}
	got.Spec.Suspend = ptr.To(false)
	if _, err := h.client.BatchV1().Jobs("ns").Update(context.Background(), got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got = h.sync("s")
	c = condition(got, batchv1.JobSuspended)
	if len(h.pods()) != 2 || got.Status.StartTime == nil || c.Status != corev1.ConditionFalse || c.Reason != "JobResumed" || c.Message != "Job resumed" {
		t.Fatalf("resumed: %+v", got.Status)
	}
	got.Spec.Suspend = ptr.To(true)
	if _, err := h.client.BatchV1().Jobs("ns").Update(context.Background(), got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got = h.sync("s")
	if len(h.pods()) != 0 || got.Status.Active != 0 || got.Status.Failed != 0 || condition(got, batchv1.JobSuspended).Status != corev1.ConditionTrue {
		t.Fatalf("suspended again: %+v, %d pods", got.Status, len(h.pods()))
	}
}

// TestPodFailurePolicy pins the actions: FailJob fails the Job with the
// upstream message, Ignore does not count (the Job does not fail past
// backoffLimit 0), Count counts.
func TestPodFailurePolicy(t *testing.T) {
	policy := &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
		{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}},
		{Action: batchv1.PodFailurePolicyActionIgnore, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{7}}},
		{Action: batchv1.PodFailurePolicyActionCount, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpNotIn, Values: []int32{42, 7}}},
	}}
	for _, tc := range []struct {
		name   string
		exit   int32
		failed int32
		reason string
	}{
		{name: "failjob", exit: 42, failed: 1, reason: batchv1.JobReasonPodFailurePolicy},
		{name: "ignore", exit: 7, failed: 0},
		{name: "count", exit: 3, failed: 1, reason: batchv1.JobReasonBackoffLimitExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.createJob(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "p"},
				Spec: batchv1.JobSpec{Completions: ptr.To[int32](1), BackoffLimit: ptr.To[int32](0), PodFailurePolicy: policy}})
			h.sync("p")
			pod := h.pods()[0].Name
			h.setPhase(pod, corev1.PodFailed, tc.exit)
			got := h.sync("p")
			if got.Status.Failed != tc.failed {
				t.Fatalf("status %+v, %d pods", got.Status, len(h.pods()))
			}
			f := condition(got, batchv1.JobFailed)
			if tc.reason == "" {
				if f != nil {
					t.Fatalf("failed: %+v", f)
				}
				return
			}
			want := "Container c for pod ns/" + pod + " failed with exit code 42 matching FailJob rule at index 0"
			if tc.reason != batchv1.JobReasonPodFailurePolicy {
				want = "Job has reached the specified backoff limit"
			}
			if f == nil || f.Reason != tc.reason || f.Message != want || condition(got, batchv1.JobFailureTarget) == nil {
				t.Fatalf("conditions %+v", got.Status.Conditions)
			}
		})
	}
}

// TestIndexedSuccessPolicy: Indexed Pods carry their index as annotation
// and label, hostname <job>-<index> and JOB_COMPLETION_INDEX; a success
// policy met by index 1 ends the Job, deleting the other Pods.
func TestIndexedSuccessPolicy(t *testing.T) {
	h := newHarness(t)
	h.createJob(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "ix"},
		Spec: batchv1.JobSpec{Completions: ptr.To[int32](3), Parallelism: ptr.To[int32](3), CompletionMode: ptr.To(batchv1.IndexedCompletion),
			SuccessPolicy: &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr.To("1")}}}}})
	h.sync("ix")
	pods := h.pods()
	if len(pods) != 3 {
		t.Fatalf("%d pods", len(pods))
	}
	byIndex := map[string]string{}
	for _, p := range pods {
		ix := p.Annotations[batchv1.JobCompletionIndexAnnotation]
		if p.Labels[batchv1.JobCompletionIndexAnnotation] != ix || p.Spec.Hostname != "ix-"+ix || p.GenerateName != "ix-"+ix+"-" ||
			p.Spec.Containers[0].Env[0].Name != "JOB_COMPLETION_INDEX" {
			t.Fatalf("pod %+v", p)
		}
		byIndex[ix] = p.Name
	}
	h.setPhase(byIndex["1"], corev1.PodSucceeded, 0)
	got := h.sync("ix")
	scm := condition(got, batchv1.JobSuccessCriteriaMet)
	if got.Status.CompletedIndexes != "1" || got.Status.Succeeded != 1 || scm == nil || scm.Reason != batchv1.JobReasonSuccessPolicy || scm.Message != "Matched rules at index 0" {
		t.Fatalf("status %+v", got.Status)
	}
	got = h.sync("ix")
	if c := condition(got, batchv1.JobComplete); c == nil || c.Reason != batchv1.JobReasonSuccessPolicy || len(h.pods()) != 1 {
		t.Fatalf("status %+v, %d pods", got.Status, len(h.pods()))
	}
}

// TestBackoffLimitPerIndex: a failed index is retried after its own
// back-off with the failure count carried in the replacement's
// annotation; past its limit it is listed in failedIndexes and not
// retried; when every index has succeeded or failed the Job fails with
// FailedIndexes.
func TestBackoffLimitPerIndex(t *testing.T) {
	h := newHarness(t)
	h.createJob(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi"},
		Spec: batchv1.JobSpec{Completions: ptr.To[int32](2), Parallelism: ptr.To[int32](2), CompletionMode: ptr.To(batchv1.IndexedCompletion),
			BackoffLimitPerIndex: ptr.To[int32](1), BackoffLimit: ptr.To[int32](1 << 30)}})
	h.sync("pi")
	index := func(ix string) []corev1.Pod {
		var out []corev1.Pod
		for _, p := range h.pods() {
			if p.Annotations[batchv1.JobCompletionIndexAnnotation] == ix {
				out = append(out, p)
			}
		}
		return out
	}
	h.setPhase(index("0")[0].Name, corev1.PodFailed, 1)
	if h.sync("pi"); len(index("0")) != 1 {
		t.Fatal("index 0 retried before its back-off")
	}
	h.clock.Step(11 * time.Second)
	h.sync("pi")
	retry := index("0")
	if len(retry) != 2 || retry[1].Annotations[batchv1.JobIndexFailureCountAnnotation] != "1" {
		t.Fatalf("retry of index 0: %+v", retry)
	}
	h.setPhase(retry[1].Name, corev1.PodFailed, 1)
	h.clock.Step(time.Hour)
	got := h.sync("pi")
	if got.Status.FailedIndexes == nil || *got.Status.FailedIndexes != "0" || len(index("0")) != 2 || got.Status.Failed != 2 {
		t.Fatalf("status %+v, %d pods", got.Status, len(h.pods()))
	}
	h.setPhase(index("1")[0].Name, corev1.PodSucceeded, 0)
	got = h.sync("pi")
	if f := condition(got, batchv1.JobFailed); f == nil || f.Reason != batchv1.JobReasonFailedIndexes || f.Message != "Job has failed indexes" || got.Status.CompletedIndexes != "1" {
		t.Fatalf("status %+v", got.Status)
	}
}

// TestOrphanFinalizer: a Pod left with the tracking finalizer by a Job
// that is gone has it removed.
func TestOrphanFinalizer(t *testing.T) {
	h := newHarness(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "o", Namespace: "ns", Finalizers: []string{batchv1.JobTrackingFinalizer, "other"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "gone", UID: "x", Controller: ptr.To(true)}}}}
	if _, err := h.client.CoreV1().Pods("ns").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.refresh()
	if err := h.c.syncOrphanPod(context.Background(), "ns/o"); err != nil {
		t.Fatal(err)
	}
	if got := h.pods()[0].Finalizers; len(got) != 1 || got[0] != "other" {
		t.Fatalf("finalizers %v", got)
	}
}

// TestAdoptAndRelease: an orphan Pod the selector matches is adopted
// (controller reference and tracking finalizer) and counted; an owned
// Pod whose labels stop matching is released.
func TestAdoptAndRelease(t *testing.T) {
	h := newHarness(t)
	job := h.createJob(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Spec: batchv1.JobSpec{Completions: ptr.To[int32](1)}})
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: "ns", Labels: job.Spec.Template.Labels},
		Spec: job.Spec.Template.Spec}
	if _, err := h.client.CoreV1().Pods("ns").Create(context.Background(), orphan, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := h.sync("a")
	pods := h.pods()
	if len(pods) != 1 || !metav1.IsControlledBy(&pods[0], job) || !hasFinalizer(&pods[0]) || got.Status.Active != 1 {
		t.Fatalf("status %+v, pods %+v", got.Status, pods)
	}
	p := pods[0]
	p.Labels = map[string]string{"other": "x"}
	if _, err := h.client.CoreV1().Pods("ns").Update(context.Background(), &p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.sync("a")
	released := h.pods()
	var kept *corev1.Pod
	for i := range released {
		if released[i].Name == "orphan" {
			kept = &released[i]
		}
	}
	if kept == nil || metav1.GetControllerOf(kept) != nil || hasFinalizer(kept) {
		t.Fatalf("pods %+v", released)
	}
}
