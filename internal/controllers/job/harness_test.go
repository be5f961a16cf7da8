package job

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/controllers/controllertest"
)

var t0 = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

// harness drives the controller by hand: Sync, then copy what the fake
// API holds into the informer stores, as a watch would.
type harness struct {
	t       *testing.T
	client  *fake.Clientset
	factory informers.SharedInformerFactory
	clock   *clocktesting.FakeClock
	rec     *events.FakeRecorder
	c       *Controller
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	// The fake API neither generates names nor assigns UIDs.
	client := controllertest.NewClientset(controllertest.ServerDefaults{})
	factory := informers.NewSharedInformerFactory(client, 0)
	clk := clocktesting.NewFakeClock(t0)
	rec := events.NewFakeRecorder(1000)
	c, err := New(client, factory.Batch().V1().Jobs(), factory.Core().V1().Pods(), rec, clk, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.queue.ShutDown(); c.orphans.ShutDown() })
	return &harness{t: t, client: client, factory: factory, clock: clk, rec: rec, c: c}
}

var _ clock.WithTicker = &clocktesting.FakeClock{}

// refresh replaces the informer stores with the fake API's content.
func (h *harness) refresh() {
	h.t.Helper()
	ctx := context.Background()
	jobs, err := h.client.BatchV1().Jobs("").List(ctx, metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	controllertest.Replace(h.t, h.factory.Batch().V1().Jobs().Informer(), jobs.Items)
	pods, err := h.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	controllertest.Replace(h.t, h.factory.Core().V1().Pods().Informer(), pods.Items)
	// The stores now show every write: what the event handlers would
	// have told the expectations.
	h.c.exp = newExpectations(h.clock)
}

// sync runs one sync of ns/name over fresh stores and refreshes again.
func (h *harness) sync(name string) *batchv1.Job {
	h.t.Helper()
	h.refresh()
	if err := h.c.Sync(context.Background(), "ns/"+name); err != nil {
		h.t.Fatalf("sync: %v", err)
	}
	h.refresh()
	return h.job(name)
}

func (h *harness) job(name string) *batchv1.Job {
	h.t.Helper()
	j, err := h.client.BatchV1().Jobs("ns").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return j
}

// createJob stores job as the registry would after defaulting.
func (h *harness) createJob(job *batchv1.Job) *batchv1.Job {
	h.t.Helper()
	job.Namespace = "ns"
	if job.Spec.Parallelism == nil {
		job.Spec.Parallelism = ptr.To[int32](1)
	}
	if job.Spec.BackoffLimit == nil {
		job.Spec.BackoffLimit = ptr.To[int32](6)
	}
	labels := map[string]string{batchv1.JobNameLabel: job.Name, batchv1.ControllerUidLabel: "job-" + job.Name}
	job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: "job-" + job.Name}}
	job.Spec.Template.Labels = labels
	if len(job.Spec.Template.Spec.Containers) == 0 {
		job.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox"}}
	}
	job.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	got, err := h.client.BatchV1().Jobs("ns").Create(context.Background(), job, metav1.CreateOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	// The selector names the UID the registry assigned.
	got.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(got.UID)
	got.Spec.Template.Labels[batchv1.ControllerUidLabel] = string(got.UID)
	got, err = h.client.BatchV1().Jobs("ns").Update(context.Background(), got, metav1.UpdateOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return got
}

// pods are the Job's Pods in the fake API, by name.
func (h *harness) pods() []corev1.Pod {
	h.t.Helper()
	list, err := h.client.CoreV1().Pods("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	sort.Slice(list.Items, func(a, b int) bool { return list.Items[a].Name < list.Items[b].Name })
	return list.Items
}

// setPhase writes a Pod's phase (and a container exit code for a failed
// one) as a kubelet would.
func (h *harness) setPhase(name string, phase corev1.PodPhase, exitCode int32) {
	h.t.Helper()
	ctx := context.Background()
	p, err := h.client.CoreV1().Pods("ns").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	p.Status.Phase = phase
	if phase == corev1.PodFailed || phase == corev1.PodSucceeded {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode, FinishedAt: metav1.NewTime(h.clock.Now())}}}}
	}
	if _, err := h.client.CoreV1().Pods("ns").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

// events drains the recorded events.
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

func condition(job *batchv1.Job, typ batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		if job.Status.Conditions[i].Type == typ {
			return &job.Status.Conditions[i]
		}
	}
	return nil
}
