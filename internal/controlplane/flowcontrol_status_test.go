package controlplane

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kapi-dev/kapi/internal/server"
)

// lockedBuffer collects the server's log lines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// pollAPF retries cond until it holds, failing the test after a minute.
func pollAPF(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, time.Minute, true, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestFlowControlConfiguration runs a whole server: the producer creates
// the suggested objects and keeps those annotated "true", the consumer
// writes the Dangling condition, and the debug endpoints answer admins
// only.
func TestFlowControlConfiguration(t *testing.T) {
	logs := &lockedBuffer{}
	vb := server.NewVerbosity(0)
	s := startServer(t, "memory", withoutControllers, func(c *Config) {
		c.apfEnsurePeriod = 50 * time.Millisecond
		c.Verbosity = vb
		c.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: vb}))
	})
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t.Run("suggested objects exist", func(t *testing.T) {
		pls, err := cs.FlowcontrolV1().PriorityLevelConfigurations().List(ctx, metav1.ListOptions{})
		if err != nil || len(pls.Items) != 8 {
			t.Fatalf("priority levels: %v, %d", err, len(pls.Items))
		}
		fss, err := cs.FlowcontrolV1().FlowSchemas().List(ctx, metav1.ListOptions{})
		if err != nil || len(fss.Items) != 11 {
			t.Fatalf("flow schemas: %v, %d", err, len(fss.Items))
		}
	})
	t.Run("autoupdate-spec", func(t *testing.T) { testAutoUpdate(t, cs) })
	t.Run("Dangling", func(t *testing.T) { testDangling(t, cs) })
	t.Run("debug endpoints", func(t *testing.T) { testDebugEndpoints(t, s.restCfg, cs, logs) })
}

// setShares changes a priority level's shares and annotation.
func setShares(t *testing.T, cs kubernetes.Interface, name, annotation string, shares int32) {
	t.Helper()
	pls := cs.FlowcontrolV1().PriorityLevelConfigurations()
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pl, err := pls.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pl.Annotations["apf.kubernetes.io/autoupdate-spec"] = annotation
		pl.Spec.Limited.NominalConcurrencyShares = ptr.To(shares)
		_, err = pls.Update(ctx, pl, metav1.UpdateOptions{})
		return err == nil, nil // a conflict with the producer: again
	})
	if err != nil {
		t.Fatalf("updating %s: %v", name, err)
	}
}

func shares(ctx context.Context, cs kubernetes.Interface, name string) (int32, error) {
	pl, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return 0, err
	}
	return *pl.Spec.Limited.NominalConcurrencyShares, nil
}

func testAutoUpdate(t *testing.T, cs kubernetes.Interface) {
	// workload-high is edited first, so a round that puts workload-low
	// back after its second edit has looked at the edited workload-high.
	setShares(t, cs, "workload-high", "false", 7)
	for range 2 {
		setShares(t, cs, "workload-low", "true", 7)
		pollAPF(t, "workload-low put back", func(ctx context.Context) (bool, error) {
			n, err := shares(ctx, cs, "workload-low")
			return n == 100, err
		})
	}
	if n, err := shares(context.Background(), cs, "workload-high"); err != nil || n != 7 {
		t.Errorf("workload-high (autoupdate false) shares = %d, %v; want 7", n, err)
	}
}

func dangling(ctx context.Context, cs kubernetes.Interface, name string) (*flowcontrolv1.FlowSchemaCondition, error) {
	fs, err := cs.FlowcontrolV1().FlowSchemas().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	for i := range fs.Status.Conditions {
		if fs.Status.Conditions[i].Type == flowcontrolv1.FlowSchemaConditionDangling {
			return &fs.Status.Conditions[i], nil
		}
	}
	return nil, nil
}

func testDangling(t *testing.T, cs kubernetes.Interface) {
	ctx := context.Background()
	fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "dangler"}, Spec: flowcontrolv1.FlowSchemaSpec{
		PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "later"},
		MatchingPrecedence:         1000,
	}}
	if _, err := cs.FlowcontrolV1().FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pollAPF(t, "Dangling True", func(ctx context.Context) (bool, error) {
		c, err := dangling(ctx, cs, "dangler")
		return c != nil && c.Status == flowcontrolv1.ConditionTrue && c.Reason == "NotFound" &&
			c.Message == `This FlowSchema references the PriorityLevelConfiguration object named "later" but there is no such object`, err
	})
	pl := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "later"}, Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
		Type: flowcontrolv1.PriorityLevelEnablementLimited,
		Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
			LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
		},
	}}
	if _, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, pl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pollAPF(t, "Dangling False", func(ctx context.Context) (bool, error) {
		c, err := dangling(ctx, cs, "dangler")
		return c != nil && c.Status == flowcontrolv1.ConditionFalse && c.Reason == "Found", err
	})
	got, err := cs.FlowcontrolV1().FlowSchemas().Get(ctx, "dangler", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	managers := map[string]string{}
	for _, m := range got.ManagedFields {
		managers[m.Manager] = string(m.Operation) + "/" + m.Subresource
	}
	if managers["api-priority-and-fairness-config-consumer-v1"] != "Apply/status" {
		t.Errorf("managed fields %v, want the consumer's apply of status", managers)
	}
}

func testDebugEndpoints(t *testing.T, admin *rest.Config, cs kubernetes.Interface, logs *lockedBuffer) {
	ctx := context.Background()
	if _, err := cs.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/").DoRaw(ctx); err != nil {
		t.Errorf("admin GET /debug/pprof/: %v", err)
	}
	bobCfg := rest.CopyConfig(admin)
	bobCfg.Impersonate = rest.ImpersonationConfig{UserName: "bob", Groups: []string{"system:authenticated"}}
	bob := kubernetes.NewForConfigOrDie(bobCfg)
	if _, err := bob.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/").DoRaw(ctx); !apierrors.IsForbidden(err) {
		t.Errorf("bob GET /debug/pprof/: %v, want 403", err)
	}
	if _, err := bob.CoreV1().RESTClient().Put().AbsPath("/debug/flags/v").Body([]byte("3")).DoRaw(ctx); !apierrors.IsForbidden(err) {
		t.Errorf("bob PUT /debug/flags/v: %v, want 403", err)
	}
	if strings.Contains(logs.String(), `"msg":"HTTP"`) {
		t.Fatalf("request logged at -v=0")
	}
	body, err := cs.CoreV1().RESTClient().Put().AbsPath("/debug/flags/v").Body([]byte("3")).DoRaw(ctx)
	if err != nil || string(body) != "successfully set klog.logging.verbosity to 3\n" {
		t.Fatalf("PUT /debug/flags/v: %q, %v", body, err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	pollAPF(t, "request log at -v=3", func(context.Context) (bool, error) {
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, `"msg":"HTTP"`) && strings.Contains(line, `"verb":"GET","URI":"/api/v1/namespaces/default"`) &&
				strings.Contains(line, `"resp":200`) && strings.Contains(line, `"audit-ID":"`) {
				return true, nil
			}
		}
		return false, nil
	})
}
