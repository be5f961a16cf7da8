package resourcequota

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/kapi-dev/kapi/internal/quota"
)

// lockedSources lets a test change the objects while workers list them.
type lockedSources struct {
	mu      sync.Mutex
	objects []runtime.Object
}

func (l *lockedSources) ListFunc(context.Context, schema.GroupResource) (quota.ListFunc, error) {
	return func(string) ([]runtime.Object, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		return append([]runtime.Object(nil), l.objects...), nil
	}, nil
}

func (l *lockedSources) HasSynced() bool { return true }

// TestRunResyncsPeriodically: a new quota gets its status at once; usage
// that changes without any event is picked up when the resync period
// passes on the controller's clock.
func TestRunResyncsPeriodically(t *testing.T) {
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns"},
		Spec: corev1.ResourceQuotaSpec{Hard: list("configmaps", "5")}}
	client := fake.NewClientset(q)
	factory := informers.NewSharedInformerFactory(client, 0)
	clk := clocktesting.NewFakeClock(time.Now())
	sources := &lockedSources{}
	c, err := New(Config{Client: client, Quotas: factory.Core().V1().ResourceQuotas(), Registry: quota.NewRegistry(clk),
		Clock: clk, ResyncPeriod: time.Minute, Sources: sources})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory.Start(ctx.Done())
	done := make(chan struct{})
	go func() { c.Run(ctx, 1); close(done) }()
	defer func() { cancel(); <-done; factory.Shutdown() }()

	used := func(want string, step bool) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			if step {
				clk.Step(time.Minute)
			}
			got, err := client.CoreV1().ResourceQuotas("ns").Get(ctx, "q", metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			u, ok := got.Status.Used[corev1.ResourceConfigMaps]
			return ok && u.String() == want, nil
		})
		if err != nil {
			t.Fatalf("status.used never became %s", want)
		}
	}
	used("0", false)
	sources.mu.Lock()
	sources.objects = []runtime.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}}}
	sources.mu.Unlock()
	used("1", true)
}
