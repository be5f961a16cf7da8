package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: RequestResponse
  resources: [{group: "", resources: ["configmaps"]}]
- level: Request
  verbs: ["create"]
  resources: [{group: "", resources: ["secrets"]}]
- level: None
  resources: [{group: "", resources: ["secrets"]}]
- level: Metadata
`

// auditEvent is the part of an audit.k8s.io/v1 Event the test checks.
type auditEvent struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Level      string `json:"level"`
	AuditID    string `json:"auditID"`
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	UserAgent  string `json:"userAgent"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource, Namespace, Name string
	} `json:"objectRef"`
	SourceIPs      []string `json:"sourceIPs"`
	ResponseStatus *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"responseStatus"`
	RequestObject  json.RawMessage `json:"requestObject"`
	ResponseObject json.RawMessage `json:"responseObject"`
}

// TestAuditLog runs requests under a policy with every level and checks
// the log has one valid event per audited request at the right level,
// with bodies only where the level asks for them.
func TestAuditLog(t *testing.T) {
	policy := writeTestFile(t, "audit-policy.yaml", []byte(auditPolicy))
	logPath := filepath.Join(t.TempDir(), "audit.log")
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"),
		framework.WithArgs("--audit-policy-file", policy, "--audit-log-path", logPath))

	cfg := k.RESTConfig()
	cfg.UserAgent = "audit-e2e"
	cs := kubernetes.NewForConfigOrDie(rest.CopyConfig(cfg))
	ctx := t.Context()
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, newConfigMap("audited", "k", "v"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "audited", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "audited"}, StringData: map[string]string{"k": "v"}}
	if _, err := cs.CoreV1().Secrets("default").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Secrets("default").Get(ctx, "audited", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	resp := cs.CoreV1().RESTClient().Get().AbsPath("/healthz").Do(ctx)
	if err := resp.Error(); err != nil {
		t.Fatal(err)
	}

	// A token nobody knows: 401, audited with no user (the catch-all
	// Metadata rule matches), as kube-apiserver audits it.
	anon := rest.AnonymousClientConfig(cfg)
	anon.BearerToken = "not-a-known-token"
	anon.UserAgent = "audit-e2e-unauthenticated"
	_, err := kubernetes.NewForConfigOrDie(anon).CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if !apierrors.IsUnauthorized(err) {
		t.Fatalf("list with an unknown token: %v, want 401 Unauthorized", err)
	}

	want := []struct{ verb, resource, level string }{
		{"create", "configmaps", "RequestResponse"},
		{"get", "configmaps", "RequestResponse"},
		{"create", "secrets", "Request"},
		{"list", "pods", "Metadata"},
	}
	var events, unauth []auditEvent
	deadline := time.Now().Add(30 * time.Second)
	for {
		events = readAuditLog(t, logPath, "audit-e2e")
		unauth = readAuditLog(t, logPath, "audit-e2e-unauthenticated")
		if (len(events) >= len(want) && len(unauth) >= 1) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(events) != len(want) {
		t.Fatalf("%d audit events from the test's requests, want %d: %+v", len(events), len(want), events)
	}
	for i, w := range want {
		e := events[i]
		if e.APIVersion != "audit.k8s.io/v1" || e.Kind != "Event" || e.Stage != "ResponseComplete" || e.AuditID == "" {
			t.Errorf("event %d is not a complete audit.k8s.io/v1 Event: %+v", i, e)
		}
		if e.Verb != w.verb || e.ObjectRef == nil || e.ObjectRef.Resource != w.resource || e.Level != w.level {
			t.Errorf("event %d: verb %s resource %+v level %s, want %s %s %s", i, e.Verb, e.ObjectRef, e.Level, w.verb, w.resource, w.level)
		}
		if e.User.Username == "" || e.ResponseStatus == nil || e.ResponseStatus.Code/100 != 2 {
			t.Errorf("event %d: user %q status %+v", i, e.User.Username, e.ResponseStatus)
		}
		wantRequest := w.verb == "create" && w.level != "Metadata"
		if (len(e.RequestObject) > 0) != wantRequest {
			t.Errorf("event %d (%s %s at %s): requestObject present = %v", i, w.verb, w.resource, w.level, len(e.RequestObject) > 0)
		}
		if (len(e.ResponseObject) > 0) != (w.level == "RequestResponse") {
			t.Errorf("event %d (%s %s at %s): responseObject present = %v", i, w.verb, w.resource, w.level, len(e.ResponseObject) > 0)
		}
	}

	if len(unauth) != 1 {
		t.Fatalf("%d audit events for the request with an unknown token, want 1: %+v", len(unauth), unauth)
	}

	// Under an audit policy the server's own informers read through its
	// handler chain, as kube-apiserver's loopback clients do, so their
	// watches are audited (without a policy they read the storage
	// in-process). They run as kube-apiserver's loopback user.
	var informerWatches int
	for _, e := range readAuditLog(t, logPath, "kapi/shared-informers") {
		if e.Verb != "watch" {
			continue
		}
		informerWatches++
		if e.User.Username != "system:apiserver" {
			t.Errorf("the server's own watch of %s ran as %q, want system:apiserver", e.RequestURI, e.User.Username)
		}
	}
	if informerWatches == 0 {
		t.Error("no audited watch of the server's shared informers (user agent kapi/shared-informers)")
	}
	e := unauth[0]
	if e.Stage != "ResponseStarted" || e.Level != "Metadata" || e.Verb != "list" || e.AuditID == "" ||
		e.RequestURI != "/api/v1/namespaces/default/pods" || len(e.SourceIPs) == 0 {
		t.Errorf("event of the failed authentication: %+v", e)
	}
	if e.User.Username != "" || e.ObjectRef == nil || e.ObjectRef.Resource != "pods" {
		t.Errorf("user %q objectRef %+v, want no user and pods", e.User.Username, e.ObjectRef)
	}
	if e.ResponseStatus == nil || e.ResponseStatus.Code != 401 || e.ResponseStatus.Message != "Authentication failed, attempted: bearer" {
		t.Errorf("responseStatus %+v, want code 401 naming the bearer token", e.ResponseStatus)
	}
}

// readAuditLog returns the events of requests made with userAgent; every
// line must be a valid event.
func readAuditLog(t *testing.T, path, userAgent string) []auditEvent {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var events []auditEvent
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit log line is not JSON: %v: %s", err, sc.Text())
		}
		if e.UserAgent == userAgent || bytes.HasPrefix([]byte(e.UserAgent), []byte(userAgent+"/")) {
			events = append(events, e)
		}
	}
	return events
}
