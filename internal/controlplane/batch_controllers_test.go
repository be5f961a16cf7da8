package controlplane

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

// startBatchServer runs a memory-backed server whose cronjob-controller
// runs on cronClock, and returns a client.
func startBatchServer(t *testing.T, cronClock clock.WithTicker) kubernetes.Interface {
	return startBatchServerTB(t, cronClock)
}

func startBatchServerTB(t testing.TB, cronClock clock.WithTicker) kubernetes.Interface {
	t.Helper()
	s := startServer(t, "memory", func(c *Config) {
		c.controllerClocks = map[string]clock.WithTicker{"cronjob-controller": cronClock}
	})
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "batch"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return cs
}

func batchJob(name string, completions, parallelism int32) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{Completions: &completions, Parallelism: &parallelism,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}
}

// succeedPods marks every Pending Pod of the Job Succeeded, as a kubelet
// would, and returns how many it marked.
func succeedPods(t *testing.T, cs kubernetes.Interface, job string) int {
	t.Helper()
	ctx := context.Background()
	pods, err := cs.CoreV1().Pods("batch").List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + job})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Status.Phase == corev1.PodSucceeded {
			continue
		}
		p.Status.Phase = corev1.PodSucceeded
		if _, err := cs.CoreV1().Pods("batch").UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// TestBatchControllersThroughTheServer: a Job with completions 3 and
// parallelism 2 gets two Pending Pods owned by it with the tracking
// finalizer, a third once one succeeds, and completes when all have;
// with ttlSecondsAfterFinished 0 it is then deleted with its Pods. A
// CronJob "* * * * *" creates its Job once its (fake) clock passes the
// next minute.
func TestBatchControllersThroughTheServer(t *testing.T) {
	cronClock := clocktesting.NewFakeClock(time.Now())
	cs := startBatchServer(t, cronClock)
	ctx := context.Background()
	jobs := cs.BatchV1().Jobs("batch")
	j := batchJob("pi", 3, 2)
	j.Spec.TTLSecondsAfterFinished = ptr.To[int32](0)
	created, err := jobs.Create(ctx, j, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	listPods := func() []corev1.Pod {
		pods, err := cs.CoreV1().Pods("batch").List(ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=pi"})
		if err != nil {
			t.Fatal(err)
		}
		return pods.Items
	}
	poll(t, "two pods", func(ctx context.Context) (bool, error) {
		got, err := jobs.Get(ctx, "pi", metav1.GetOptions{})
		return err == nil && got.Status.Active == 2 && len(listPods()) == 2, err
	})
	for _, p := range listPods() {
		if !metav1.IsControlledBy(&p, created) || len(p.Finalizers) != 1 || p.Finalizers[0] != batchv1.JobTrackingFinalizer || p.Status.Phase != corev1.PodPending {
			t.Fatalf("pod %+v", p.ObjectMeta)
		}
	}
	succeedPods(t, cs, "pi")
	poll(t, "a third pod", func(ctx context.Context) (bool, error) {
		got, err := jobs.Get(ctx, "pi", metav1.GetOptions{})
		return err == nil && got.Status.Succeeded == 2 && len(listPods()) == 3, err
	})
	succeedPods(t, cs, "pi")
	poll(t, "job completed and deleted by its TTL with its pods", func(ctx context.Context) (bool, error) {
		_, err := jobs.Get(ctx, "pi", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && len(listPods()) == 0, nil
	})

	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "tick"}, Spec: batchv1.CronJobSpec{
		Schedule: "* * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchJob("", 1, 1).Spec}}}
	if _, err := cs.BatchV1().CronJobs("batch").Create(ctx, cj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The controller may read the clock before a step and queue its
	// wake-up after it (relative to the stepped time), so one step can be
	// missed: keep stepping until the first Job is scheduled.
	poll(t, "cronjob's job", func(ctx context.Context) (bool, error) {
		got, err := cs.BatchV1().CronJobs("batch").Get(ctx, "tick", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if got.Status.LastScheduleTime == nil {
			cronClock.Step(time.Minute)
		}
		if len(got.Status.Active) == 0 {
			return false, nil
		}
		job, err := jobs.Get(ctx, got.Status.Active[0].Name, metav1.GetOptions{})
		return err == nil && metav1.IsControlledBy(job, got) && job.Annotations[batchv1.CronJobScheduledTimestampAnnotation] != "", err
	})
}
