package webhookbackend

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
	"github.com/kapi-dev/kapi/internal/leakcheck"
)

// TestMain fails the package when a batching goroutine outlives the tests.
func TestMain(m *testing.M) {
	os.Exit(leakcheck.Main(m, "internal/audit/webhookbackend.(*batcher)"))
}

const testToken = "s3cret-token"

// sink is an audit webhook: a TLS server recording the EventLists POSTed
// to /audit with the expected token, failing the first `failures` requests.
type sink struct {
	t        *testing.T
	srv      *httptest.Server
	batches  chan auditv1.EventList
	mu       sync.Mutex
	failures int
	attempts int
}

func newSink(t *testing.T, failures int) *sink {
	s := &sink{t: t, batches: make(chan auditv1.EventList, 100), failures: failures}
	s.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.attempts++
		fail := s.attempts <= s.failures
		s.mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/audit" || r.Header.Get("Authorization") != "Bearer "+testToken ||
			r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("unexpected request %s %s (content type %q)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		d := json.NewDecoder(r.Body)
		d.DisallowUnknownFields()
		var list auditv1.EventList
		if err := d.Decode(&list); err != nil {
			t.Errorf("body is not an EventList: %v", err)
		}
		if list.APIVersion != "audit.k8s.io/v1" || list.Kind != "EventList" {
			t.Errorf("list type %q %q", list.APIVersion, list.Kind)
		}
		s.batches <- list
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// kubeconfig writes a kubeconfig pointing at the sink, trusting its CA.
func (s *sink) kubeconfig() string {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["sink"] = &clientcmdapi.Cluster{Server: s.srv.URL + "/audit", CertificateAuthorityData: ca}
	cfg.AuthInfos["kapi"] = &clientcmdapi.AuthInfo{Token: testToken}
	cfg.Contexts["default"] = &clientcmdapi.Context{Cluster: "sink", AuthInfo: "kapi"}
	cfg.CurrentContext = "default"
	path := filepath.Join(s.t.TempDir(), "webhook.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		s.t.Fatal(err)
	}
	return path
}

func (s *sink) attemptCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.attempts
}

// next waits for the next batch.
func (s *sink) next() auditv1.EventList {
	s.t.Helper()
	select {
	case l := <-s.batches:
		return l
	case <-time.After(30 * time.Second): // a hang guard, not a performance limit
		s.t.Fatal("no batch arrived")
		return auditv1.EventList{}
	}
}

// rest returns the batches already received.
func (s *sink) rest() []auditv1.EventList {
	var out []auditv1.EventList
	for {
		select {
		case l := <-s.batches:
			out = append(out, l)
		default:
			return out
		}
	}
}

func ids(lists ...auditv1.EventList) []string {
	var out []string
	for _, l := range lists {
		for _, e := range l.Items {
			out = append(out, string(e.AuditID))
		}
	}
	return out
}

func events(n int) []*auditv1.Event {
	out := make([]*auditv1.Event, n)
	for i := range out {
		out[i] = &auditv1.Event{AuditID: types.UID(auditID(i)), Level: auditv1.LevelMetadata, Stage: auditv1.StageResponseComplete}
	}
	return out
}

func auditID(i int) string { return fmt.Sprintf("id-%02d", i) }

func options() BatchOptions {
	o := DefaultBatchOptions()
	o.MaxBatchWait = time.Hour // batches here are cut by size or shutdown
	o.ThrottleEnable = false
	o.InitialBackoff = time.Millisecond
	return o
}

func newBackend(t *testing.T, s *sink, o BatchOptions) audit.Backend {
	t.Helper()
	b, err := New(s.kubeconfig(), o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBatchesBySizeAndFlushesOnShutdown(t *testing.T) {
	s := newSink(t, 0)
	o := options()
	o.MaxBatchSize = 3
	b := newBackend(t, s, o)
	if err := b.Run(make(chan struct{})); err != nil {
		t.Fatal(err)
	}
	evs := events(7)
	if !b.ProcessEvents(evs...) {
		t.Fatal("ProcessEvents failed")
	}
	first, second := s.next(), s.next()
	for _, l := range []auditv1.EventList{first, second} {
		if len(l.Items) != 3 {
			t.Errorf("full batch has %d events, want 3", len(l.Items))
		}
	}
	b.Shutdown()
	got := ids(append([]auditv1.EventList{first, second}, s.rest()...)...)
	slices.Sort(got)
	want := ids(auditv1.EventList{Items: derefs(evs)})
	if !slices.Equal(got, want) {
		t.Errorf("delivered %v, want %v", got, want)
	}
}

func derefs(evs []*auditv1.Event) []auditv1.Event {
	out := make([]auditv1.Event, len(evs))
	for i, e := range evs {
		out[i] = *e
	}
	return out
}

func TestBatchSentAfterMaxWait(t *testing.T) {
	s := newSink(t, 0)
	o := options()
	o.MaxBatchWait = 10 * time.Millisecond
	b := newBackend(t, s, o)
	defer b.Shutdown()
	b.Run(make(chan struct{}))
	b.ProcessEvents(events(2)...)
	// Nothing fills the batch: only the wait can send it.
	if got := ids(s.next()); len(got) != 2 {
		t.Errorf("batch %v, want both events", got)
	}
}

func TestStopChannelThenShutdown(t *testing.T) {
	s := newSink(t, 0)
	b := newBackend(t, s, options())
	stop := make(chan struct{})
	b.Run(stop)
	b.ProcessEvents(events(5)...)
	close(stop)
	b.Shutdown()
	if got := ids(s.rest()...); len(got) != 5 {
		t.Errorf("delivered %v, want 5 events", got)
	}
	b.ProcessEvents(events(1)...) // refused quietly after shutdown
	if got := s.rest(); len(got) != 0 {
		t.Errorf("events after shutdown were sent: %v", got)
	}
}

func TestShutdownWithoutRun(t *testing.T) {
	s := newSink(t, 0)
	b := newBackend(t, s, options())
	b.ProcessEvents(events(4)...)
	b.Shutdown()
	if got := ids(s.rest()...); len(got) != 4 {
		t.Errorf("delivered %v, want 4 events", got)
	}
}

func TestRetriesFailedBatch(t *testing.T) {
	s := newSink(t, 2)
	b := newBackend(t, s, options())
	b.ProcessEvents(events(1)...)
	b.Shutdown()
	if got := ids(s.rest()...); !slices.Equal(got, []string{auditID(0)}) {
		t.Errorf("delivered %v, want the one event once", got)
	}
	if n := s.attemptCount(); n != 3 {
		t.Errorf("%d attempts, want 3 (two failures, then success)", n)
	}
}

func TestGivesUpAfterFiveAttempts(t *testing.T) {
	s := newSink(t, 100)
	b := newBackend(t, s, options())
	b.ProcessEvents(events(1)...)
	b.Shutdown()
	if n := s.attemptCount(); n != 5 {
		t.Errorf("%d attempts, want 5", n)
	}
}

func TestFullBufferDrops(t *testing.T) {
	s := newSink(t, 0)
	o := options()
	o.BufferSize = 2
	b := newBackend(t, s, o)
	if !b.ProcessEvents(events(5)...) {
		t.Error("a full buffer failed the caller; upstream drops instead")
	}
	b.Shutdown()
	if got := ids(s.rest()...); !slices.Equal(got, []string{auditID(0), auditID(1)}) {
		t.Errorf("delivered %v, want the first two", got)
	}
}

func TestEventsAreCopied(t *testing.T) {
	s := newSink(t, 0)
	b := newBackend(t, s, options())
	ev := &auditv1.Event{AuditID: "orig", Annotations: map[string]string{"k": "v"}}
	b.ProcessEvents(ev)
	ev.AuditID = "changed"
	ev.Annotations["k"] = "changed"
	b.Shutdown()
	got := s.rest()
	if len(got) != 1 || got[0].Items[0].AuditID != "orig" || got[0].Items[0].Annotations["k"] != "v" {
		t.Errorf("delivered %+v, want the event as it was when processed", got)
	}
}

func TestThrottled(t *testing.T) {
	s := newSink(t, 0)
	o := options()
	o.ThrottleEnable = true
	o.MaxBatchSize = 1
	b := newBackend(t, s, o)
	b.ProcessEvents(events(3)...)
	b.Shutdown()
	if got := ids(s.rest()...); len(got) != 3 {
		t.Errorf("delivered %v, want 3 events", got)
	}
}

func TestNewErrors(t *testing.T) {
	good := newSink(t, 0).kubeconfig()
	mod := func(f func(*BatchOptions)) BatchOptions {
		o := DefaultBatchOptions()
		f(&o)
		return o
	}
	tests := []struct {
		name       string
		kubeconfig string
		opts       BatchOptions
		want       string
	}{
		{"missing file", filepath.Join(t.TempDir(), "none"), DefaultBatchOptions(), "loading audit webhook kubeconfig"},
		{"buffer", good, mod(func(o *BatchOptions) { o.BufferSize = 0 }), "invalid audit batch webhook buffer size 0, must be a positive number"},
		{"batch size", good, mod(func(o *BatchOptions) { o.MaxBatchSize = -1 }), "invalid audit batch webhook max batch size -1, must be a positive number"},
		{"qps", good, mod(func(o *BatchOptions) { o.ThrottleQPS = 0 }), "invalid audit batch webhook throttle QPS 0, must be a positive number"},
		{"burst", good, mod(func(o *BatchOptions) { o.ThrottleBurst = 0 }), "invalid audit batch webhook throttle burst 0, must be a positive number"},
		{"wait", good, mod(func(o *BatchOptions) { o.MaxBatchWait = 0 }), "max wait"},
		{"backoff", good, mod(func(o *BatchOptions) { o.InitialBackoff = -time.Second }), "initial backoff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.kubeconfig, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	o := DefaultBatchOptions()
	o.ThrottleEnable, o.ThrottleQPS, o.ThrottleBurst = false, 0, 0
	if err := o.Validate(); err != nil {
		t.Errorf("throttle settings are checked with throttling off: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	o := DefaultBatchOptions()
	if o.BufferSize != 10000 || o.MaxBatchSize != 400 || o.MaxBatchWait != 30*time.Second ||
		!o.ThrottleEnable || o.ThrottleQPS != 10 || o.ThrottleBurst != 15 || o.InitialBackoff != 10*time.Second {
		t.Errorf("defaults %+v differ from upstream's", o)
	}
}
