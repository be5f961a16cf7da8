package ttlafterfinished

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

var t0 = time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)

func finishedJob(ttl *int32, cond batchv1.JobConditionType) *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "u1"}, Spec: batchv1.JobSpec{TTLSecondsAfterFinished: ttl}}
	if cond != "" {
		j.Status.Conditions = []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0)}}
	}
	return j
}

// TestTTL: a finished Job is deleted once its TTL has passed since it
// finished — foreground, preconditioned on its UID — and not before; a
// running Job or one without a TTL is kept.
func TestTTL(t *testing.T) {
	for _, tc := range []struct {
		name    string
		job     *batchv1.Job
		elapsed time.Duration
		deleted bool
	}{
		{"complete expired", finishedJob(ptr.To[int32](10), batchv1.JobComplete), 10 * time.Second, true},
		{"failed expired", finishedJob(ptr.To[int32](0), batchv1.JobFailed), 0, true},
		{"not yet", finishedJob(ptr.To[int32](10), batchv1.JobComplete), 9 * time.Second, false},
		{"running", finishedJob(ptr.To[int32](0), ""), time.Hour, false},
		{"no ttl", finishedJob(nil, batchv1.JobComplete), time.Hour, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.job)
			var opts *metav1.DeleteOptions
			client.PrependReactor("delete", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
				o := a.(k8stesting.DeleteActionImpl).DeleteOptions
				opts = &o
				return false, nil, nil
			})
			factory := informers.NewSharedInformerFactory(client, 0)
			clk := clocktesting.NewFakeClock(t0.Add(tc.elapsed))
			c, err := New(client, factory.Batch().V1().Jobs(), clk, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.queue.ShutDown()
			if err := factory.Batch().V1().Jobs().Informer().GetIndexer().Add(tc.job); err != nil {
				t.Fatal(err)
			}
			if err := c.Sync(context.Background(), "ns/j"); err != nil {
				t.Fatal(err)
			}
			if (opts != nil) != tc.deleted {
				t.Fatalf("deleted %v, want %v", opts != nil, tc.deleted)
			}
			if opts != nil && (*opts.PropagationPolicy != metav1.DeletePropagationForeground || *opts.Preconditions.UID != "u1") {
				t.Fatalf("options %+v", opts)
			}
			if !tc.deleted && tc.name == "not yet" && c.queue.Len() != 0 {
				t.Fatal("requeued at once instead of after the TTL")
			}
		})
	}
}

// TestStaleTTL: the cache says expired but the API's fresh copy has a
// longer TTL: nothing is deleted.
func TestStaleTTL(t *testing.T) {
	fresh := finishedJob(ptr.To[int32](3600), batchv1.JobComplete)
	client := fake.NewClientset(fresh)
	deleted := false
	client.PrependReactor("delete", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		deleted = true
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	c, err := New(client, factory.Batch().V1().Jobs(), clocktesting.NewFakeClock(t0.Add(time.Minute)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.queue.ShutDown()
	if err := factory.Batch().V1().Jobs().Informer().GetIndexer().Add(finishedJob(ptr.To[int32](10), batchv1.JobComplete)); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(context.Background(), "ns/j"); err != nil || deleted {
		t.Fatalf("err %v, deleted %v", err, deleted)
	}
}
