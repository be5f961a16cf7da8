package resourcequota

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/quota"
)

// fakeSources serves fixed objects per resource; failing resources error.
type fakeSources struct {
	objects map[schema.GroupResource][]runtime.Object
	failing map[schema.GroupResource]bool
}

func (f *fakeSources) ListFunc(_ context.Context, gr schema.GroupResource) (quota.ListFunc, error) {
	if f.failing[gr] {
		return nil, errors.New(gr.String() + " not yet synced")
	}
	return func(ns string) ([]runtime.Object, error) {
		var out []runtime.Object
		for _, o := range f.objects[gr] {
			if m, ok := o.(metav1.Object); ok && m.GetNamespace() == ns {
				out = append(out, o)
			}
		}
		return out, nil
	}, nil
}

func (f *fakeSources) HasSynced() bool { return true }

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func testPod(name string, phase corev1.PodPhase, cpu string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}},
		Status: corev1.PodStatus{Phase: phase}}
	if cpu != "" {
		p.Spec.Containers[0].Resources.Requests = list("cpu", cpu)
	}
	return p
}

func TestSync(t *testing.T) {
	widget := func(name, ns string) runtime.Object {
		u := &unstructured.Unstructured{}
		u.SetName(name)
		u.SetNamespace(ns)
		return u
	}
	objects := map[schema.GroupResource][]runtime.Object{
		{Resource: "configmaps"}: {
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "other"}},
		},
		{Resource: "pods"}: {
			testPod("running", corev1.PodRunning, "500m"),
			testPod("done", corev1.PodSucceeded, "2"),
			testPod("besteffort", corev1.PodPending, ""),
		},
		{Group: "example.com", Resource: "widgets"}: {widget("w1", "ns"), widget("w2", "ns"), widget("w3", "other")},
	}
	tests := []struct {
		name    string
		quota   *corev1.ResourceQuota
		failing map[schema.GroupResource]bool
		want    corev1.ResourceQuotaStatus
		wantErr bool
		noWrite bool
	}{
		{
			name: "new quota gets hard and used",
			quota: &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns"},
				Spec: corev1.ResourceQuotaSpec{Hard: list("configmaps", "2", "pods", "3", "requests.cpu", "1", "count/pods", "9", "count/widgets.example.com", "5", "secrets", "1")}},
			want: corev1.ResourceQuotaStatus{
				Hard: list("configmaps", "2", "pods", "3", "requests.cpu", "1", "count/pods", "9", "count/widgets.example.com", "5", "secrets", "1"),
				Used: list("configmaps", "1", "pods", "2", "requests.cpu", "500m", "count/pods", "3", "count/widgets.example.com", "2", "secrets", "0"),
			},
		},
		{
			name: "BestEffort scope counts only best-effort pods",
			quota: &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns"},
				Spec: corev1.ResourceQuotaSpec{Hard: list("pods", "3"), Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}}},
			want: corev1.ResourceQuotaStatus{Hard: list("pods", "3"), Used: list("pods", "1")},
		},
		{
			name: "used beyond hard is dropped, a changed hard is copied",
			quota: &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns"},
				Spec:   corev1.ResourceQuotaSpec{Hard: list("configmaps", "5")},
				Status: corev1.ResourceQuotaStatus{Hard: list("configmaps", "1", "secrets", "1"), Used: list("configmaps", "1", "secrets", "1")}},
			want: corev1.ResourceQuotaStatus{Hard: list("configmaps", "5"), Used: list("configmaps", "1")},
		},
		{
			name: "a resource that cannot be listed keeps its usage",
			quota: &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns"},
				Spec:   corev1.ResourceQuotaSpec{Hard: list("configmaps", "5", "count/widgets.example.com", "5")},
				Status: corev1.ResourceQuotaStatus{Hard: list("configmaps", "5"), Used: list("configmaps", "4")}},
			failing: map[schema.GroupResource]bool{{Group: "example.com", Resource: "widgets"}: true},
			want:    corev1.ResourceQuotaStatus{Hard: list("configmaps", "5", "count/widgets.example.com", "5"), Used: list("configmaps", "1")},
			wantErr: true,
		},
		{
			name: "nothing changed, nothing written",
			quota: &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns"},
				Spec:   corev1.ResourceQuotaSpec{Hard: list("configmaps", "5")},
				Status: corev1.ResourceQuotaStatus{Hard: list("configmaps", "5"), Used: list("configmaps", "1")}},
			noWrite: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset(tt.quota)
			factory := informers.NewSharedInformerFactory(client, 0)
			clk := clocktesting.NewFakeClock(time.Now())
			c, err := New(Config{Client: client, Quotas: factory.Core().V1().ResourceQuotas(), Registry: quota.NewRegistry(clk), Clock: clk,
				Sources: &fakeSources{objects: objects, failing: tt.failing}})
			if err != nil {
				t.Fatal(err)
			}
			err = c.Sync(context.Background(), tt.quota)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Sync error = %v, want error %v", err, tt.wantErr)
			}
			var writes int
			for _, a := range client.Actions() {
				if a.GetVerb() == "update" && a.GetSubresource() == "status" {
					writes++
				}
			}
			if tt.noWrite {
				if writes != 0 {
					t.Fatalf("wrote the status %d times", writes)
				}
				return
			}
			got, err := client.CoreV1().ResourceQuotas("ns").Get(context.Background(), "q", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !quota.Equals(got.Status.Hard, tt.want.Hard) || !quota.Equals(got.Status.Used, tt.want.Used) {
				t.Errorf("status:\n got hard %v used %v\nwant hard %v used %v", got.Status.Hard, got.Status.Used, tt.want.Hard, tt.want.Used)
			}
		})
	}
}

// TestReplenish: a deletion enqueues the quotas of its namespace that
// limit its resource, and no other.
func TestReplenish(t *testing.T) {
	quotas := []runtime.Object{
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}, Status: corev1.ResourceQuotaStatus{Hard: list("configmaps", "1")}},
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "pods", Namespace: "ns"}, Status: corev1.ResourceQuotaStatus{Hard: list("pods", "1")}},
		&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "other"}, Status: corev1.ResourceQuotaStatus{Hard: list("configmaps", "1")}},
	}
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	inf := factory.Core().V1().ResourceQuotas()
	for _, q := range quotas {
		if err := inf.Informer().GetIndexer().Add(q); err != nil {
			t.Fatal(err)
		}
	}
	clk := clocktesting.NewFakeClock(time.Now())
	c, err := New(Config{Client: client, Quotas: inf, Registry: quota.NewRegistry(clk), Clock: clk, Sources: &fakeSources{}})
	if err != nil {
		t.Fatal(err)
	}
	c.Replenish(schema.GroupResource{Resource: "configmaps"}, "ns")
	c.Replenish(schema.GroupResource{Resource: "events"}, "ns")
	if got := c.queue.Len(); got != 1 {
		t.Fatalf("queue holds %d keys, want 1", got)
	}
	if key, _ := c.queue.Get(); key != "ns/cm" {
		t.Errorf("queued %q, want ns/cm", key)
	}
}
