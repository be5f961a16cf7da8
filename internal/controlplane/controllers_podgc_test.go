package controlplane

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/controllers/podgc"
)

// TestPodGCThroughTheServer: a terminating Pod that was never scheduled
// is marked Failed (through a status patch carrying its UID, as
// upstream's) and force-deleted by the pod garbage collector's next pass
// (every 20 s); a finalizer keeps it visible to the test.
func TestPodGCThroughTheServer(t *testing.T) {
	// The collector passes at start and then every 20 s of its clock:
	// the test moves that clock once the pod waits for a pass.
	gcClock := testingclock.NewFakeClock(time.Now())
	s := startConfiguredServer(t, "podgc", func(c *Config) {
		c.Controllers = []string{"podgc"}
		c.Security.DisableAdmissionPlugins = []string{"ServiceAccount"}
		c.controllerClocks = map[string]clock.WithTicker{"pod-garbage-collector-controller": gcClock}
	})
	ctx := context.Background()
	pods := s.client.CoreV1().Pods("default")
	_, err := pods.Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "stuck", Finalizers: []string{"example.com/hold"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, "stuck", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Force-deleted: the grace period drops to 0.
	poll(t, "the unscheduled terminating pod marked Failed and force-deleted", func(ctx context.Context) (bool, error) {
		if gcClock.HasWaiters() {
			gcClock.Step(podgc.CheckPeriod)
		}
		got, err := pods.Get(ctx, "stuck", metav1.GetOptions{})
		return err == nil && got.Status.Phase == corev1.PodFailed &&
			got.DeletionGracePeriodSeconds != nil && *got.DeletionGracePeriodSeconds == 0, err
	})
	if _, err := pods.Patch(ctx, "stuck", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "the pod gone", func(ctx context.Context) (bool, error) {
		_, err := pods.Get(ctx, "stuck", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}
