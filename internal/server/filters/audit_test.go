package filters

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kapi-dev/kapi/internal/audit"
	auditv1 "github.com/kapi-dev/kapi/internal/audit/v1"
	"github.com/kapi-dev/kapi/internal/auth/authorizer"
	"github.com/kapi-dev/kapi/internal/auth/user"
	"github.com/kapi-dev/kapi/internal/endpoints/request"
)

// fakeBackend keeps each event it gets as the JSON a log line would hold.
type fakeBackend struct {
	mu     sync.Mutex
	lines  [][]byte
	failAt int // fail the n-th event (1-based); 0 never
}

func (b *fakeBackend) ProcessEvents(events ...*auditv1.Event) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			panic(err)
		}
		b.lines = append(b.lines, line)
		if len(b.lines) == b.failAt {
			return false
		}
	}
	return true
}
func (b *fakeBackend) Run(<-chan struct{}) error { return nil }
func (b *fakeBackend) Shutdown()                 {}

// events decodes the recorded lines strictly, so that a field that is not
// audit.k8s.io/v1 fails the test.
func (b *fakeBackend) events(t *testing.T) []auditv1.Event {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []auditv1.Event
	for _, line := range b.lines {
		d := json.NewDecoder(bytes.NewReader(line))
		d.DisallowUnknownFields()
		var e auditv1.Event
		if err := d.Decode(&e); err != nil {
			t.Fatalf("event %s is not audit.k8s.io/v1: %v", line, err)
		}
		if e.APIVersion != "audit.k8s.io/v1" || e.Kind != "Event" {
			t.Errorf("event type %q %q", e.APIVersion, e.Kind)
		}
		out = append(out, e)
	}
	return out
}

// stepClock returns times a millisecond apart.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

var testAuditPolicy = &auditv1.Policy{Rules: []auditv1.PolicyRule{
	{Level: auditv1.LevelNone, Users: []string{"system:kube-proxy"}},
	{Level: auditv1.LevelMetadata, Resources: []auditv1.GroupResources{{Resources: []string{"secrets"}}}},
	{Level: auditv1.LevelRequest, Resources: []auditv1.GroupResources{{Resources: []string{"configmaps"}}}},
	{Level: auditv1.LevelRequestResponse, Resources: []auditv1.GroupResources{{Resources: []string{"pods", "pods/*"}}}},
	{Level: auditv1.LevelMetadata, NonResourceURLs: []string{"/healthz*"}},
}}

const (
	podJSON    = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns"}}`
	cmJSON     = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c"},"data":{"k":"v"}}`
	secretJSON = `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s"},"data":{"k":"dg=="}}`
)

// podFromProto is protoPod in an event.
const podFromProto = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns"},"spec":{"containers":null},"status":{}}`

// protoPod is a pod as a clientset sends it.
var protoPod = func() string {
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(pod, &buf); err != nil {
		panic(err)
	}
	return buf.String()
}()

// echo reads the body and answers code with JSON body.
func echo(code int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

type auditCase struct {
	name        string
	user        user.Info
	method, url string
	body        string
	contentType string
	headers     map[string]string
	handler     http.Handler
	policy      *auditv1.Policy

	wantCode    int
	wantStages  []auditv1.Stage
	wantLevel   auditv1.Level
	wantRequest string // requestObject of the last event, "" none
	wantResp    string // responseObject of the last event, "" none
	wantStatus  *metav1.Status
	wantRef     *auditv1.ObjectReference
	check       func(t *testing.T, last auditv1.Event)
}

var (
	alice     = &user.DefaultInfo{Name: "alice", UID: "a-1", Groups: []string{"devs", user.AllAuthenticated}}
	kubeProxy = &user.DefaultInfo{Name: "system:kube-proxy"}
	complete  = []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseComplete}
)

func auditCases() []auditCase {
	return []auditCase{
		{
			name: "level None records nothing", user: kubeProxy, method: "GET", url: "/api/v1/namespaces/ns/pods/p",
			handler: echo(200, podJSON), wantCode: 200,
		},
		{
			name: "no matching rule records nothing", user: alice, method: "GET", url: "/version",
			handler: echo(200, `{}`), wantCode: 200,
		},
		{
			name: "Metadata has no bodies", user: alice, method: "PUT", url: "/api/v1/namespaces/ns/secrets/s",
			body: secretJSON, contentType: "application/json", handler: echo(200, secretJSON),
			wantCode: 200, wantStages: complete, wantLevel: auditv1.LevelMetadata,
			wantStatus: &metav1.Status{Code: 200},
			wantRef:    &auditv1.ObjectReference{Resource: "secrets", Namespace: "ns", Name: "s", APIVersion: "v1"},
		},
		{
			name: "Request records the request body", user: alice, method: "POST", url: "/api/v1/namespaces/ns/configmaps",
			body: cmJSON, contentType: "application/json", handler: echo(201, cmJSON),
			wantCode: 201, wantStages: complete, wantLevel: auditv1.LevelRequest,
			wantRequest: cmJSON, wantStatus: &metav1.Status{Code: 201},
			wantRef: &auditv1.ObjectReference{Resource: "configmaps", Namespace: "ns", APIVersion: "v1"},
		},
		{
			name: "Request records YAML as JSON", user: alice, method: "PATCH", url: "/api/v1/namespaces/ns/configmaps/c?fieldManager=m",
			body: "data:\n  k: v\n", contentType: "application/apply-patch+yaml", handler: echo(200, cmJSON),
			wantCode: 200, wantStages: complete, wantLevel: auditv1.LevelRequest,
			wantRequest: `{"data":{"k":"v"}}`, wantStatus: &metav1.Status{Code: 200},
		},
		{
			name: "body the handler never read is not recorded", user: alice, method: "POST", url: "/api/v1/namespaces/ns/configmaps",
			body: cmJSON, contentType: "application/json",
			handler:  http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) }),
			wantCode: 403, wantStages: complete, wantLevel: auditv1.LevelRequest, wantStatus: &metav1.Status{Code: 403},
		},
		{
			name: "RequestResponse records both bodies", user: alice, method: "POST", url: "/api/v1/namespaces/ns/pods",
			body: podJSON, contentType: "application/json", handler: echo(201, podJSON),
			wantCode: 201, wantStages: complete, wantLevel: auditv1.LevelRequestResponse,
			wantRequest: podJSON, wantResp: podJSON, wantStatus: &metav1.Status{Code: 201},
		},
		{
			name: "protobuf bodies are recorded as JSON", user: alice, method: "POST", url: "/api/v1/namespaces/ns/pods",
			body: protoPod, contentType: "application/vnd.kubernetes.protobuf",
			handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
				w.WriteHeader(201)
				io.WriteString(w, protoPod)
			}),
			wantCode: 201, wantStages: complete, wantLevel: auditv1.LevelRequestResponse,
			wantRequest: podFromProto, wantResp: podFromProto, wantStatus: &metav1.Status{Code: 201},
		},
		{
			name: "a Status response fills responseStatus", user: alice, method: "GET", url: "/api/v1/namespaces/ns/secrets/missing",
			handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				WriteStatus(w, notFound("secrets", "missing"))
			}),
			wantCode: 404, wantStages: complete, wantLevel: auditv1.LevelMetadata,
			wantStatus: &metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: 404,
				Message: `secrets "missing" not found`, Details: &metav1.StatusDetails{Name: "missing", Kind: "secrets"}},
		},
		{
			name: "non-resource request", user: alice, method: "GET", url: "/healthz/etcd",
			handler: echo(200, `"ok"`), wantCode: 200, wantStages: complete, wantLevel: auditv1.LevelMetadata,
			wantStatus: &metav1.Status{Code: 200},
			check: func(t *testing.T, last auditv1.Event) {
				if last.ObjectRef != nil || last.Verb != "get" || last.RequestURI != "/healthz/etcd" {
					t.Errorf("objectRef %v verb %q uri %q", last.ObjectRef, last.Verb, last.RequestURI)
				}
			},
		},
		{
			name: "long-running request records ResponseStarted and no response body", user: alice, method: "GET",
			url: "/api/v1/namespaces/ns/pods?watch=true", handler: echo(200, `{"type":"ADDED","object":`+podJSON+`}`),
			wantCode:   200,
			wantStages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseStarted, auditv1.StageResponseComplete},
			wantLevel:  auditv1.LevelRequestResponse, wantStatus: &metav1.Status{Code: 200},
		},
		{
			name: "long-running request that never answered", user: alice, method: "GET", url: "/api/v1/namespaces/ns/pods?watch=true",
			handler:    http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}),
			wantCode:   200,
			wantStages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseStarted, auditv1.StageResponseComplete},
			wantLevel:  auditv1.LevelRequestResponse,
			wantStatus: &metav1.Status{Code: 200, Status: metav1.StatusSuccess, Message: "Connection closed early"},
		},
		{
			name: "handler that wrote nothing", user: alice, method: "GET", url: "/api/v1/namespaces/ns/secrets/s",
			handler:  http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}),
			wantCode: 200, wantStages: complete, wantLevel: auditv1.LevelMetadata,
			wantStatus: &metav1.Status{Code: 200, Status: metav1.StatusSuccess, Message: "Connection closed early"},
		},
		{
			name: "policy omits stages", user: alice, method: "GET", url: "/api/v1/namespaces/ns/pods/p",
			policy:  &auditv1.Policy{OmitStages: []auditv1.Stage{auditv1.StageRequestReceived}, Rules: []auditv1.PolicyRule{{Level: auditv1.LevelMetadata}}},
			handler: echo(200, podJSON), wantCode: 200,
			wantStages: []auditv1.Stage{auditv1.StageResponseComplete}, wantLevel: auditv1.LevelMetadata,
			wantStatus: &metav1.Status{Code: 200},
		},
		{
			name: "managed fields omitted", user: alice, method: "PUT", url: "/api/v1/namespaces/ns/pods/p",
			policy: &auditv1.Policy{OmitManagedFields: true, Rules: []auditv1.PolicyRule{{Level: auditv1.LevelRequestResponse}}},
			body:   `{"metadata":{"name":"p","managedFields":[{"manager":"kubectl"}]}}`, contentType: "application/json",
			handler:  echo(200, `{"metadata":{"name":"p","managedFields":[{"manager":"kubectl"}]}}`),
			wantCode: 200, wantStages: complete, wantLevel: auditv1.LevelRequestResponse,
			wantRequest: `{"metadata":{"name":"p"}}`, wantResp: `{"metadata":{"name":"p"}}`, wantStatus: &metav1.Status{Code: 200},
		},
		{
			name: "impersonation keeps both users", user: alice, method: "GET", url: "/api/v1/namespaces/ns/secrets/s",
			headers: map[string]string{"Impersonate-User": "bob", "User-Agent": "kubectl/v1.37", "X-Forwarded-For": "10.1.1.1"},
			handler: echo(200, secretJSON), wantCode: 200, wantStages: complete, wantLevel: auditv1.LevelMetadata,
			wantStatus: &metav1.Status{Code: 200},
			check: func(t *testing.T, last auditv1.Event) {
				wantUser := authnv1.UserInfo{Username: "alice", UID: "a-1", Groups: []string{"devs", user.AllAuthenticated}}
				if diff := cmp.Diff(wantUser, last.User); diff != "" {
					t.Errorf("user (-want +got):\n%s", diff)
				}
				wantImp := &authnv1.UserInfo{Username: "bob", Groups: []string{user.AllAuthenticated}}
				if diff := cmp.Diff(wantImp, last.ImpersonatedUser); diff != "" {
					t.Errorf("impersonatedUser (-want +got):\n%s", diff)
				}
				if last.UserAgent != "kubectl/v1.37" {
					t.Errorf("userAgent %q", last.UserAgent)
				}
				if diff := cmp.Diff([]string{"10.1.1.1", "192.0.2.1"}, last.SourceIPs); diff != "" {
					t.Errorf("sourceIPs (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "authorization annotations", user: alice, method: "GET", url: "/api/v1/namespaces/ns/secrets/s",
			handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				AuditAuthorizationDecision(r.Context(), authorizer.DecisionAllow, `RBAC: allowed by ClusterRoleBinding "x"`, nil)
				AddAuditAnnotation(r.Context(), "example.com/k", "v")
				w.WriteHeader(http.StatusOK)
			}),
			wantCode: 200, wantStages: complete, wantLevel: auditv1.LevelMetadata, wantStatus: &metav1.Status{Code: 200},
			check: func(t *testing.T, last auditv1.Event) {
				want := map[string]string{
					"authorization.k8s.io/decision": "allow",
					"authorization.k8s.io/reason":   `RBAC: allowed by ClusterRoleBinding "x"`,
					"example.com/k":                 "v",
				}
				if diff := cmp.Diff(want, last.Annotations); diff != "" {
					t.Errorf("annotations (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "long user agent is truncated", user: alice, method: "GET", url: "/healthz",
			headers: map[string]string{"User-Agent": strings.Repeat("u", 2000)},
			handler: echo(200, `"ok"`), wantCode: 200, wantStages: complete, wantLevel: auditv1.LevelMetadata,
			wantStatus: &metav1.Status{Code: 200},
			check: func(t *testing.T, last auditv1.Event) {
				if want := strings.Repeat("u", 1024) + "...TRUNCATED"; last.UserAgent != want {
					t.Errorf("userAgent has %d bytes, want %d", len(last.UserAgent), len(want))
				}
			},
		},
	}
}

func notFound(resource, name string) error {
	return &statusErr{metav1.Status{Status: metav1.StatusFailure, Reason: metav1.StatusReasonNotFound, Code: 404,
		Message: resource + ` "` + name + `" not found`, Details: &metav1.StatusDetails{Name: name, Kind: resource}}}
}

type statusErr struct{ s metav1.Status }

func (e *statusErr) Error() string         { return e.s.Message }
func (e *statusErr) Status() metav1.Status { return e.s }

// auditChain is the chain's order: request info, (authentication,) audit,
// impersonation, handler.
func auditChain(handler http.Handler, policy *auditv1.Policy, backend audit.Backend, clock *stepClock, u user.Info) http.Handler {
	allowAll := authorizer.Func(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionAllow, "", nil
	})
	h := WithImpersonation(handler, allowAll)
	h = withAudit(h, audit.NewChecker(policy), backend, request.DefaultLongRunningRequestCheck(), clock.now)
	authn := h
	h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := request.WithAuditID(r.Context(), "audit-1")
		authn.ServeHTTP(w, r.WithContext(request.WithUser(ctx, u)))
	})
	return withInfo(h)
}

func TestWithAudit(t *testing.T) {
	for _, tt := range auditCases() {
		t.Run(tt.name, func(t *testing.T) {
			b := &fakeBackend{}
			start := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
			clock := &stepClock{t: start}
			policy := tt.policy
			if policy == nil {
				policy = testAuditPolicy
			}
			h := auditChain(tt.handler, policy, b, clock, tt.user)
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			r := httptest.NewRequest(tt.method, tt.url, body)
			if tt.contentType != "" {
				r.Header.Set("Content-Type", tt.contentType)
			}
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != tt.wantCode {
				t.Fatalf("code = %d, want %d: %s", rec.Code, tt.wantCode, rec.Body)
			}

			events := b.events(t)
			var stages []auditv1.Stage
			for _, e := range events {
				stages = append(stages, e.Stage)
				if e.Level != tt.wantLevel {
					t.Errorf("%s event level %s, want %s", e.Stage, e.Level, tt.wantLevel)
				}
				if e.AuditID != "audit-1" {
					t.Errorf("auditID %q", e.AuditID)
				}
				if !e.RequestReceivedTimestamp.Time.Equal(start.Add(time.Millisecond)) {
					t.Errorf("requestReceivedTimestamp %v, want the first clock reading", e.RequestReceivedTimestamp)
				}
				if e.Stage == auditv1.StageRequestReceived {
					if !e.StageTimestamp.Equal(&e.RequestReceivedTimestamp) {
						t.Errorf("RequestReceived stage at %v, want the receive time", e.StageTimestamp)
					}
					if e.ResponseStatus != nil || e.RequestObject != nil || e.ResponseObject != nil {
						t.Errorf("RequestReceived event already has response or bodies: %+v", e)
					}
				} else if !e.StageTimestamp.After(e.RequestReceivedTimestamp.Time) {
					t.Errorf("%s stage at %v, not after the receive time", e.Stage, e.StageTimestamp)
				}
			}
			if diff := cmp.Diff(tt.wantStages, stages); diff != "" {
				t.Fatalf("stages (-want +got):\n%s", diff)
			}
			if len(events) == 0 {
				return
			}
			last := events[len(events)-1]
			if got := rawString(last.RequestObject); got != tt.wantRequest {
				t.Errorf("requestObject = %s, want %s", got, tt.wantRequest)
			}
			if got := rawString(last.ResponseObject); got != tt.wantResp {
				t.Errorf("responseObject = %s, want %s", got, tt.wantResp)
			}
			if diff := cmp.Diff(tt.wantStatus, last.ResponseStatus); diff != "" {
				t.Errorf("responseStatus (-want +got):\n%s", diff)
			}
			if tt.wantRef != nil {
				if diff := cmp.Diff(tt.wantRef, last.ObjectRef); diff != "" {
					t.Errorf("objectRef (-want +got):\n%s", diff)
				}
			}
			if tt.check != nil {
				tt.check(t, last)
			}
		})
	}
}

func rawString(u *runtime.Unknown) string {
	if u == nil {
		return ""
	}
	return string(u.Raw)
}

func TestWithAuditPanic(t *testing.T) {
	b := &fakeBackend{}
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	h := auditChain(boom, testAuditPolicy, b, &stepClock{}, alice)
	func() {
		defer func() {
			if v := recover(); v != "boom" {
				t.Errorf("recovered %v, want the handler's panic to go on", v)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/v1/namespaces/ns/pods/p", nil))
	}()
	events := b.events(t)
	if len(events) != 2 || events[1].Stage != auditv1.StagePanic {
		t.Fatalf("events %+v, want RequestReceived then Panic", events)
	}
	want := &metav1.Status{Code: 500, Status: metav1.StatusFailure, Reason: metav1.StatusReasonInternalError, Message: "APIServer panic'd: boom"}
	if diff := cmp.Diff(want, events[1].ResponseStatus); diff != "" {
		t.Errorf("responseStatus (-want +got):\n%s", diff)
	}
}

func TestWithAuditBackendFailure(t *testing.T) {
	b := &fakeBackend{failAt: 1}
	called := false
	next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { called = true })
	h := auditChain(next, testAuditPolicy, b, &stepClock{}, alice)
	rec := do(h, "GET", "/api/v1/namespaces/ns/secrets/s")
	if rec.Code != 500 || called {
		t.Fatalf("code %d, handler called %v; want 500 without calling the handler", rec.Code, called)
	}
	if s := decodeStatus(t, rec); s.Message != "Internal error occurred: failed to store audit event" {
		t.Errorf("message %q", s.Message)
	}
}

func TestWithAuditDisabled(t *testing.T) {
	next := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	if h := WithAudit(next, nil, &fakeBackend{}, nil); h == nil {
		t.Fatal("nil handler")
	}
	// Without a RequestInfo the chain is misassembled: a 500, no event.
	b := &fakeBackend{}
	h := WithAudit(next, audit.NewChecker(testAuditPolicy), b, nil)
	if rec := do(h, "GET", "/healthz"); rec.Code != 500 || len(b.lines) != 0 {
		t.Errorf("code %d with %d events, want 500 and none", rec.Code, len(b.lines))
	}
}

func TestAuditAuthorizationDecision(t *testing.T) {
	tests := []struct {
		name     string
		decision authorizer.Decision
		reason   string
		err      error
		want     map[string]string
	}{
		{"allow", authorizer.DecisionAllow, "ok", errors.New("partial"),
			map[string]string{AuditAnnotationDecision: "allow", AuditAnnotationReason: "ok"}},
		{"deny", authorizer.DecisionDeny, "no", nil,
			map[string]string{AuditAnnotationDecision: "forbid", AuditAnnotationReason: "no"}},
		{"no opinion", authorizer.DecisionNoOpinion, "", nil,
			map[string]string{AuditAnnotationDecision: "forbid", AuditAnnotationReason: ""}},
		{"error", authorizer.DecisionNoOpinion, "x", errors.New("down"),
			map[string]string{AuditAnnotationReason: "internal error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := audit.NewRecord(audit.RequestAuditConfig{Level: auditv1.LevelMetadata}, &fakeBackend{}, auditv1.Event{})
			AuditAuthorizationDecision(audit.WithRecord(context.Background(), rec), tt.decision, tt.reason, tt.err)
			var got map[string]string
			rec.Update(func(e *auditv1.Event) { got = e.Annotations })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}

func BenchmarkWithAudit(b *testing.B) {
	for _, level := range []auditv1.Level{auditv1.LevelNone, auditv1.LevelMetadata, auditv1.LevelRequestResponse} {
		b.Run(string(level), func(b *testing.B) {
			policy := &auditv1.Policy{Rules: []auditv1.PolicyRule{{Level: level}}}
			h := auditChain(echo(200, podJSON), policy, discardBackend{}, &stepClock{}, alice)
			for b.Loop() {
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/v1/namespaces/ns/pods/p", nil))
			}
		})
	}
}

// discardBackend encodes events as a log would and drops them.
type discardBackend struct{}

func (discardBackend) ProcessEvents(events ...*auditv1.Event) bool {
	for _, e := range events {
		if _, err := json.Marshal(e); err != nil {
			return false
		}
	}
	return true
}
func (discardBackend) Run(<-chan struct{}) error { return nil }
func (discardBackend) Shutdown()                 {}
