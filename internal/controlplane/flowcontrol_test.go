package controlplane

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// withInFlight sets --max-requests-inflight and
// --max-mutating-requests-inflight, which size API Priority and Fairness.
func withInFlight(readOnly, mutating int) func(*Config) {
	return func(c *Config) { c.MaxRequestsInFlight, c.MaxMutatingRequestsInFlight = readOnly, mutating }
}

// apfOutcome counts the answers one user got.
type apfOutcome struct {
	served, rejected atomic.Int64
	badRejection     atomic.Value // string: a 429 without Retry-After or PF headers
}

// apfClient sends GETs of path as the impersonated user ("" is the admin,
// system:masters) and sorts the answers.
type apfClient struct {
	t      *testing.T
	client *http.Client
	host   string
}

func (c *apfClient) get(ctx context.Context, path, user string, out *apfOutcome) (*http.Response, bool) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.host+path, nil)
	if user != "" {
		req.Header.Set("Impersonate-User", user)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, false // the test ending cancels requests
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests {
		out.rejected.Add(1)
		ra, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		if err != nil || ra < 1 || resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID) == "" ||
			resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID) == "" {
			out.badRejection.Store(resp.Header.Get("Retry-After"))
		}
		return resp, true
	}
	out.served.Add(1)
	return resp, true
}

// TestPriorityAndFairnessOverload is the overload of issue 23: a server
// with 3 seats, one flow schema (by user) over a queuing priority level
// for two users, and system:masters. A noisy user with 60 concurrent
// clients is queued and then rejected with 429 and Retry-After; the
// well-behaved user, whose flow shuffle sharding puts in other queues, and
// the admin (exempt) are always served. Counts, not latencies, are
// compared.
func TestPriorityAndFairnessOverload(t *testing.T) {
	s := startServer(t, "memory", withoutControllers, withInFlight(2, 1))
	cs, err := kubernetes.NewForConfig(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pl := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "apf-test"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				NominalConcurrencyShares: ptr.To[int32](100),
				LimitResponse: flowcontrolv1.LimitResponse{
					Type:    flowcontrolv1.LimitResponseTypeQueue,
					Queuing: &flowcontrolv1.QueuingConfiguration{Queues: 16, HandSize: 2, QueueLengthLimit: 1},
				},
			},
		},
	}
	if _, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, pl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: "apf-test"},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "apf-test"},
			MatchingPrecedence:         500,
			DistinguisherMethod:        &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{
					{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "noisy"}},
					{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "quiet"}},
				},
				NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"*"}}},
			}},
		},
	}
	created, err := cs.FlowcontrolV1().FlowSchemas().Create(ctx, fs, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	httpClient, err := rest.HTTPClientFor(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &apfClient{t: t, client: httpClient, host: s.restCfg.Host}

	// Wait for the dispatcher to see the new objects.
	var probe apfOutcome
	for {
		resp, ok := c.get(ctx, "/version", "quiet", &probe)
		if ok && resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID) == string(created.UID) {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the flow schema never took effect")
		}
		time.Sleep(10 * time.Millisecond) // polling the server, not asserting a time
	}

	var noisy, quiet, admin apfOutcome
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 60 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				c.get(ctx, "/apis", "noisy", &noisy)
			}
		})
	}
	// The well-behaved user and the admin each send 30 requests, one at
	// a time, and then keep going until the noisy one was turned away.
	var others sync.WaitGroup
	for _, u := range []struct {
		name string
		out  *apfOutcome
	}{{"quiet", &quiet}, {"", &admin}} {
		others.Go(func() {
			for i := 0; i < 30 || noisy.rejected.Load() == 0; i++ {
				if ctx.Err() != nil {
					return
				}
				c.get(ctx, "/apis", u.name, u.out)
			}
		})
	}
	others.Wait()

	// While loaded: the dumps show the level and its queues.
	dump, err := cs.CoreV1().RESTClient().Get().AbsPath("/debug/api_priority_and_fairness/dump_priority_levels").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if !strings.Contains(string(dump), "PriorityLevelName,") || !strings.Contains(string(dump), "apf-test,") {
		t.Errorf("dump_priority_levels:\n%s", dump)
	}

	t.Logf("noisy served %d rejected %d; quiet served %d rejected %d; admin served %d rejected %d",
		noisy.served.Load(), noisy.rejected.Load(), quiet.served.Load(), quiet.rejected.Load(), admin.served.Load(), admin.rejected.Load())
	if noisy.rejected.Load() == 0 {
		t.Error("the noisy user was never rejected")
	}
	if quiet.rejected.Load() != 0 || quiet.served.Load() < 30 {
		t.Errorf("the well-behaved user: %d rejected, %d served", quiet.rejected.Load(), quiet.served.Load())
	}
	if admin.rejected.Load() != 0 || admin.served.Load() < 30 {
		t.Errorf("system:masters: %d rejected, %d served", admin.rejected.Load(), admin.served.Load())
	}
	if v := noisy.badRejection.Load(); v != nil {
		t.Errorf("a 429 without Retry-After or flow control headers (Retry-After %q)", v)
	}

	// The noisy user was queued before being turned away.
	metrics, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`apiserver_flowcontrol_request_queue_length_after_enqueue_count{flow_schema="apf-test",priority_level="apf-test"}`,
		`apiserver_flowcontrol_rejected_requests_total{flow_schema="apf-test",priority_level="apf-test",reason="queue-full"}`,
		`apiserver_flowcontrol_dispatched_requests_total{flow_schema="exempt",priority_level="exempt"}`,
		`apiserver_flowcontrol_nominal_limit_seats{priority_level="apf-test"}`,
	} {
		line := metricLine(string(metrics), want)
		if line == "" || strings.HasSuffix(line, " 0") {
			t.Errorf("metric %s: %q", want, line)
		}
	}
}

// metricLine returns the sample line starting with prefix.
func metricLine(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// TestPriorityAndFairnessOff: with --enable-priority-and-fairness=false
// the max-in-flight limits apply and no request is classified.
func TestPriorityAndFairnessOff(t *testing.T) {
	s := startServer(t, "memory", withoutControllers, withInFlight(2, 1), func(c *Config) { c.DisablePriorityAndFairness = true })
	httpClient, err := rest.HTTPClientFor(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &apfClient{t: t, client: httpClient, host: s.restCfg.Host}
	var out apfOutcome
	resp, ok := c.get(context.Background(), "/version", "", &out)
	if !ok || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /version: %v", resp)
	}
	if h := resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID); h != "" {
		t.Errorf("classified with APF off: %s", h)
	}
	if resp, _ := c.get(context.Background(), "/debug/api_priority_and_fairness/dump_queues", "", &out); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("APF dumps served with APF off: %v", resp)
	}
}
