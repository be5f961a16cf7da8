package flowcontrol

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// BenchmarkClassifyAndDispatch is one request's cost in APF: classify
// past ten non-matching schemas, estimate its seats, dispatch it through
// a queuing level with metrics, finish it. Issue 23 asks for under 5µs.
func BenchmarkClassifyAndDispatch(b *testing.B) {
	m, err := NewMetrics(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	d := New(Options{ServerConcurrencyLimit: 600, Metrics: m})
	var schemas []*flowcontrolv1.FlowSchema
	for i := range 10 {
		schemas = append(schemas, schemaFor(fmt.Sprintf("other-%d", i), "workload", int32(100+i), flowcontrolv1.PolicyRulesWithSubjects{
			Subjects:      []flowcontrolv1.Subject{groupSubject(fmt.Sprintf("group-%d", i))},
			ResourceRules: []flowcontrolv1.ResourcePolicyRule{resourceRule([]string{"*"}, []string{"*"}, []string{"*"}, []string{"*"}, true)},
		}))
	}
	schemas = append(schemas, schemaFor("users", "workload", 1000, flowcontrolv1.PolicyRulesWithSubjects{
		Subjects: []flowcontrolv1.Subject{groupSubject(user.AllAuthenticated)},
	}))
	schemas[len(schemas)-1].Spec.Rules[0].ResourceRules = []flowcontrolv1.ResourcePolicyRule{resourceRule([]string{"get", "list"}, []string{""}, []string{"configmaps"}, []string{"*"}, false)}
	schemas[len(schemas)-1].Spec.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType}
	d.Update(schemas, []*flowcontrolv1.PriorityLevelConfiguration{limitedLevel("workload", 100, &flowcontrolv1.QueuingConfiguration{Queues: 64, HandSize: 6, QueueLengthLimit: 50})})
	digest := RequestDigest{
		User:        &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}},
		RequestInfo: &request.RequestInfo{IsResourceRequest: true, Verb: "get", Resource: "configmaps", Namespace: "default", Name: "x"},
	}
	ctx := context.Background()
	b.ReportAllocs()
	// CPU time, not wall time: the machine is shared.
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	n := 0
	for b.Loop() {
		n++
		c, ok := d.Classify(digest)
		if !ok || c.FlowSchemaName != "users" {
			b.Fatalf("classified into %q", c.FlowSchemaName)
		}
		work := d.EstimateWork(&c, "")
		if reason := d.Handle(ctx, &c, work, nil, func() {}); reason != "" {
			b.Fatal(reason)
		}
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
}
