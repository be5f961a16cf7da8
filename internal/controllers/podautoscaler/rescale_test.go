package podautoscaler

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	core "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

// TestRescaleOutOfRange: without metrics, a target outside
// [minReplicas, maxReplicas] is still brought to the nearest bound, with
// upstream's event, condition, desiredReplicas and lastScaleTime.
func TestRescaleOutOfRange(t *testing.T) {
	cases := []struct {
		name             string
		min, max, target int32
		want             int32
		reason           string
	}{
		{"above max", 1, 5, 7, 5, "Current number of replicas above Spec.MaxReplicas"},
		{"below min", 3, 5, 1, 3, "Current number of replicas below Spec.MinReplicas"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hpa := newHPA(func(h *autoscalingv2.HorizontalPodAutoscaler) {
				h.Spec.MinReplicas, h.Spec.MaxReplicas = ptr.To(tc.min), tc.max
			})
			f := newFixture(t, hpa, ptr.To(tc.target), "app=web")
			st, evs := f.sync(t)
			if len(f.updated) != 1 || f.updated[0] != tc.want {
				t.Fatalf("scale writes %v, want [%d]", f.updated, tc.want)
			}
			wantEv := "Normal SuccessfulRescale New size: " + itoa(tc.want) + "; reason: " + tc.reason
			if strings.Join(evs, "\n") != wantEv {
				t.Errorf("events %q, want %q", evs, wantEv)
			}
			able := conditions(st)[autoscalingv2.AbleToScale]
			if able != (cond{corev1.ConditionTrue, "SucceededRescale", "the HPA controller was able to update the target scale to " + itoa(tc.want)}) {
				t.Errorf("AbleToScale %+v", able)
			}
			if _, ok := conditions(st)[autoscalingv2.ScalingActive]; ok {
				t.Errorf("ScalingActive set without metrics being asked: %+v", st.Conditions)
			}
			if st.CurrentReplicas != tc.target || st.DesiredReplicas != tc.want || st.LastScaleTime == nil || !st.LastScaleTime.Time.Equal(testNow) {
				t.Errorf("status current %d desired %d lastScaleTime %v", st.CurrentReplicas, st.DesiredReplicas, st.LastScaleTime)
			}
			if st.CurrentMetrics != nil || st.ObservedGeneration == nil || *st.ObservedGeneration != 3 {
				t.Errorf("metrics %v observedGeneration %v", st.CurrentMetrics, st.ObservedGeneration)
			}
		})
	}
}

// TestRescaleFailure reports a refused scale write as upstream.
func TestRescaleFailure(t *testing.T) {
	f := newFixture(t, newHPA(nil), ptr.To[int32](9), "app=web")
	f.scales.PrependReactor("update", "deployments", func(core.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", nil)
	})
	st, evs := f.sync(t)
	msg := `deployments.apps "web" is forbidden: <nil>`
	if want := "Warning FailedRescale New size: 5; reason: Current number of replicas above Spec.MaxReplicas; error: " + msg; strings.Join(evs, "\n") != want {
		t.Errorf("events %q, want %q", evs, want)
	}
	if got := conditions(st)[autoscalingv2.AbleToScale]; got != (cond{corev1.ConditionFalse, "FailedUpdateScale", "the HPA controller was unable to update the target scale: " + msg}) {
		t.Errorf("AbleToScale %+v", got)
	}
	if st.LastScaleTime != nil || st.CurrentReplicas != 9 || st.DesiredReplicas != 0 {
		t.Errorf("status %+v", st)
	}
}

// TestStatusWithoutMetrics pins the status upstream leaves when metrics
// fail: current replicas from the scale, desired kept, one empty metric
// status per metric, the generation observed, no scale time.
func TestStatusWithoutMetrics(t *testing.T) {
	hpa := newHPA(func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Status.DesiredReplicas = 4 })
	f := newFixture(t, hpa, ptr.To[int32](3), "app=web")
	st, _ := f.sync(t)
	if st.CurrentReplicas != 3 || st.DesiredReplicas != 4 || st.LastScaleTime != nil {
		t.Errorf("replicas %d/%d lastScaleTime %v", st.CurrentReplicas, st.DesiredReplicas, st.LastScaleTime)
	}
	if len(st.CurrentMetrics) != 1 || st.CurrentMetrics[0].Type != "" {
		t.Errorf("currentMetrics %+v, want one empty entry", st.CurrentMetrics)
	}
	if st.ObservedGeneration == nil || *st.ObservedGeneration != 3 {
		t.Errorf("observedGeneration %v", st.ObservedGeneration)
	}
	// A second sync, on the written object, changes and writes nothing.
	stored, err := f.client.AutoscalingV2().HorizontalPodAutoscalers("ns").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.hpas.Update(stored); err != nil {
		t.Fatal(err)
	}
	f.client.ClearActions()
	f.sync(t)
	for _, a := range f.client.Actions() {
		if a.GetVerb() == "update" {
			t.Errorf("unchanged status written again: %v", a)
		}
	}
}

// TestStatusConflictRetried: a status write that loses to a concurrent
// writer is retried on a fresh read of the same generation.
func TestStatusConflictRetried(t *testing.T) {
	f := newFixture(t, newHPA(nil), ptr.To[int32](2), "app=web")
	conflicts := 1
	f.client.PrependReactor("update", "horizontalpodautoscalers", func(a core.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" && conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"}, "web", nil)
		}
		return false, nil, nil
	})
	st, evs := f.sync(t)
	if got := conditions(st)[autoscalingv2.ScalingActive]; got.reason != "FailedGetResourceMetric" {
		t.Errorf("status not written after the conflict: %+v (events %q)", st, evs)
	}
	for _, e := range evs {
		if strings.Contains(e, "FailedUpdateStatus") {
			t.Errorf("event %q", e)
		}
	}
}

// TestResyncEverySyncPeriod: after a sync the HPA comes back one sync
// period later on the controller's clock, and a deleted one does not.
func TestResyncEverySyncPeriod(t *testing.T) {
	f := newFixture(t, newHPA(nil), ptr.To[int32](2), "app=web")
	clk := f.c.clock.(*clocktesting.FakeClock)
	if err := f.c.syncKey(context.Background(), "ns/web"); err != nil {
		t.Fatal(err)
	}
	if n := f.c.queue.Len(); n != 0 {
		t.Fatalf("queue holds %d before the period", n)
	}
	waitForQueue := func(want int) {
		t.Helper()
		err := wait.PollUntilContextTimeout(context.Background(), time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
			return f.c.queue.Len() == want, nil
		})
		if err != nil {
			t.Fatalf("queue length %d, want %d", f.c.queue.Len(), want)
		}
	}
	clk.Step(DefaultSyncPeriod - time.Second)
	if n := f.c.queue.Len(); n != 0 {
		t.Fatalf("queue holds %d before the period", n)
	}
	clk.Step(time.Second)
	waitForQueue(1)
	key, _ := f.c.queue.Get()
	f.c.queue.Done(key)
	f.c.delete(newHPA(nil))
	if err := f.hpas.Delete(newHPA(nil)); err != nil {
		t.Fatal(err)
	}
	if deleted, err := f.c.reconcileKey(context.Background(), key); !deleted || err != nil {
		t.Errorf("reconcile of a deleted HPA: deleted %v err %v, want it dropped", deleted, err)
	}
}

func itoa(i int32) string { return strconv.Itoa(int(i)) }

// BenchmarkReconcileWithoutMetrics is one sync of an HPA whose metric
// fails, status unchanged after the first (the steady state every sync
// period).
func BenchmarkReconcileWithoutMetrics(b *testing.B) {
	f := newFixture(b, newHPA(nil), ptr.To[int32](2), "app=web")
	ctx := context.Background()
	go func() {
		for range f.events {
		}
	}()
	b.Cleanup(func() { close(f.events) })
	if _, err := f.c.reconcileKey(ctx, "ns/web"); err == nil {
		b.Fatal("metrics did not fail")
	}
	stored, err := f.client.AutoscalingV2().HorizontalPodAutoscalers("ns").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if err := f.hpas.Update(stored); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_, _ = f.c.reconcileKey(ctx, "ns/web")
	}
}
