package metrics

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/kapi-dev/kapi/internal/admission"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
)

func newTestMetrics(t *testing.T) (*Metrics, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	return m, reg
}

// validateOnly has only the validating half.
type validateOnly struct{ err error }

func (v validateOnly) Validate(context.Context, *admission.Attributes) error { return v.err }

// TestAdmissionPluginTiming: each plugin is timed under its name, per half
// it implements, and keeps exactly the halves it had.
func TestAdmissionPluginTiming(t *testing.T) {
	m, _ := newTestMetrics(t)
	chain := m.AdmissionPlugins([]string{"Both", "Deny"}, admission.Chain{fakeChain{}, validateOnly{errors.New("no")}})
	if _, ok := chain[1].(admission.MutationInterface); ok {
		t.Fatal("a validating plugin gained a mutating half")
	}
	a := &admission.Attributes{Operation: admission.Update}
	_ = chain.Admit(context.Background(), a)
	_ = chain.Validate(context.Background(), a)
	for _, c := range []struct {
		labels []string
		want   uint64
	}{
		{[]string{"Both", "admit", "UPDATE", "false"}, 1},
		{[]string{"Both", "validate", "UPDATE", "true"}, 1},
		{[]string{"Deny", "validate", "UPDATE", "true"}, 0}, // the chain stops at Both's error
	} {
		if got := sampleCount(t, m.ops.controllerDuration, c.labels...); got != c.want {
			t.Errorf("%v: %d observations, want %d", c.labels, got, c.want)
		}
	}
	if m := (*Metrics)(nil); m.AdmissionPlugin("x", fakeChain{}) != (fakeChain{}) {
		t.Error("a nil Metrics must return the plugin unchanged")
	}
}

// TestWebhookObserver pins upstream's label values: code truncated at
// 600, the rejection's error type and code.
func TestWebhookObserver(t *testing.T) {
	m, _ := newTestMetrics(t)
	o := m.WebhookObserver()
	o.ObserveWebhook("deny.example.com", "validating", "CREATE", true, 403, time.Millisecond)
	o.ObserveWebhookRejection("deny.example.com", "validating", "CREATE", "no_error", 403)
	o.ObserveWebhook("odd.example.com", "admit", "CREATE", true, 999, time.Millisecond)
	if got := testutil.ToFloat64(m.ops.webhookRequests.WithLabelValues("deny.example.com", "validating", "CREATE", "403", "true")); got != 1 {
		t.Errorf("request_total = %v, want 1", got)
	}
	if got := testutil.ToFloat64(m.ops.webhookRequests.WithLabelValues("odd.example.com", "admit", "CREATE", "600", "true")); got != 1 {
		t.Errorf("request_total with code 999 = %v, want 1 under code 600", got)
	}
	if got := testutil.ToFloat64(m.ops.webhookRejections.WithLabelValues("deny.example.com", "validating", "CREATE", "no_error", "403")); got != 1 {
		t.Errorf("rejection_count = %v, want 1", got)
	}
	if got := sampleCount(t, m.ops.webhookDuration, "deny.example.com", "validating", "CREATE", "true"); got != 1 {
		t.Errorf("duration observations = %d, want 1", got)
	}
	if (*Metrics)(nil).WebhookObserver() != nil {
		t.Error("a nil Metrics must give a nil observer")
	}
}

// failingBackend fails every event.
type failingBackend struct{ ok bool }

func (f failingBackend) ProcessEvents(...*auditv1.Event) bool { return f.ok }
func (failingBackend) Run(<-chan struct{}) error              { return nil }
func (failingBackend) Shutdown()                              {}

// TestAuditBackendCounts: every event is counted; a refused first event
// is a rejected request, a refused later stage is not.
func TestAuditBackendCounts(t *testing.T) {
	m, reg := newTestMetrics(t)
	b := m.AuditBackend(failingBackend{})
	b.ProcessEvents(&auditv1.Event{Stage: auditv1.StageRequestReceived})
	b.ProcessEvents(&auditv1.Event{Stage: auditv1.StageResponseComplete})
	m.AuditBackend(failingBackend{ok: true}).ProcessEvents(&auditv1.Event{Stage: auditv1.StageRequestReceived})
	want := `
# HELP apiserver_audit_event_total [ALPHA] Counter of audit events generated and sent to the audit backend.
# TYPE apiserver_audit_event_total counter
apiserver_audit_event_total 3
# HELP apiserver_audit_requests_rejected_total [ALPHA] Counter of apiserver requests rejected due to an error in audit logging backend.
# TYPE apiserver_audit_requests_rejected_total counter
apiserver_audit_requests_rejected_total 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_audit_event_total", "apiserver_audit_requests_rejected_total"); err != nil {
		t.Error(err)
	}
	if m.AuditBackend(nil) != nil {
		t.Error("no backend must stay no backend")
	}
}

func sampleCount(t *testing.T, v *prometheus.HistogramVec, labels ...string) uint64 {
	t.Helper()
	h, ok := v.WithLabelValues(labels...).(prometheus.Metric)
	if !ok {
		t.Fatal("not a metric")
	}
	d := &dto.Metric{}
	if err := h.Write(d); err != nil {
		t.Fatal(err)
	}
	return d.GetHistogram().GetSampleCount()
}

// BenchmarkAdmissionPluginTiming is the cost a timed plugin adds to an
// admission step: the clock, a cached child look-up and an observation.
func BenchmarkAdmissionPluginTiming(b *testing.B) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		b.Fatal(err)
	}
	p := m.AdmissionPlugin("NamespaceLifecycle", fakeChain{}).(admission.MutationInterface)
	a := &admission.Attributes{Operation: admission.Create}
	ctx := context.Background()
	benchmarkCPU(b, func() { _ = p.Admit(ctx, a) })
}

// BenchmarkAuditBackendCount is the cost of counting one audit event.
func BenchmarkAuditBackendCount(b *testing.B) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		b.Fatal(err)
	}
	backend := m.AuditBackend(failingBackend{ok: true})
	ev := &auditv1.Event{Stage: auditv1.StageResponseComplete}
	benchmarkCPU(b, func() { backend.ProcessEvents(ev) })
}

// BenchmarkWebhookObserve is the cost of recording one webhook call.
func BenchmarkWebhookObserve(b *testing.B) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		b.Fatal(err)
	}
	o := m.WebhookObserver()
	benchmarkCPU(b, func() {
		o.ObserveWebhook("validate.example.com", "validating", "CREATE", false, 200, time.Millisecond)
	})
}

// benchmarkCPU runs f b.N times and reports the process's CPU time per
// run too: on a loaded machine wall time says little.
func benchmarkCPU(b *testing.B, f func()) {
	b.ReportAllocs()
	before := cpuTime(b)
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(cpuTime(b)-before)/float64(b.N), "cpu-ns/op")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestAuthorizerDecisions: allows and denies count under the authorizer's
// type and name; no opinion does not count.
func TestAuthorizerDecisions(t *testing.T) {
	m, reg := newTestMetrics(t)
	var decision authorizer.Decision
	a := m.AuthorizerDecisions("RBAC", "rbac", authorizer.Func(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return decision, "", nil
	}))
	for _, d := range []authorizer.Decision{authorizer.DecisionAllow, authorizer.DecisionAllow, authorizer.DecisionNoOpinion, authorizer.DecisionDeny} {
		decision = d
		if got, _, _ := a.Authorize(context.Background(), authorizer.Attributes{}); got != d {
			t.Fatalf("Authorize() = %v, want the wrapped authorizer's %v", got, d)
		}
	}
	want := `
# HELP apiserver_authorization_decisions_total [ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.
# TYPE apiserver_authorization_decisions_total counter
apiserver_authorization_decisions_total{decision="allowed",name="rbac",type="RBAC"} 2
apiserver_authorization_decisions_total{decision="denied",name="rbac",type="RBAC"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_authorization_decisions_total"); err != nil {
		t.Error(err)
	}
}
