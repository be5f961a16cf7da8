package controlplane

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// stoppableServer is a memory-backed server a test stops itself, to watch
// the shutdown: stop cancels Run's context, done yields Run's result.
type stoppableServer struct {
	restCfg *rest.Config
	stop    context.CancelFunc
	done    <-chan error
}

func startStoppableServer(t *testing.T, opts ...func(*Config)) *stoppableServer {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	cfg := &Config{
		Out: pw, DataDir: dir, CertDir: filepath.Join(dir, "pki"),
		BindAddress: net.ParseIP("127.0.0.1"), StorageBackend: "memory", EtcdPrefix: "/registry",
		WatchCacheSize: 1000, RequestTimeout: time.Minute, MinRequestTimeout: 30 * time.Minute,
		MaxRequestBytes: 3 << 20,
	}
	withoutControllers(cfg)
	for _, o := range opts {
		o(cfg)
	}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg); pw.Close() }()
	t.Cleanup(cancel)
	scanner := bufio.NewScanner(pr)
	for scanner.Scan() && !strings.HasPrefix(scanner.Text(), "kapi is ready") {
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	restCfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	restCfg.QPS, restCfg.Burst = -1, -1
	return &stoppableServer{restCfg: restCfg, stop: cancel, done: done}
}

// blockingWebhook allows everything, counting calls on called, but holds a
// request for a ConfigMap named "slow" until release is closed, announcing
// it on entered.
func blockingWebhook(t *testing.T, called *atomic.Int64, entered chan<- struct{}, release <-chan struct{}) (url string, ca []byte) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		called.Add(1)
		if review.Request.Name == "slow" {
			entered <- struct{}{}
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		_ = json.NewEncoder(w).Encode(&admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
	}))
	t.Cleanup(srv.Close)
	return srv.URL, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// TestShutdownDrainsGracefully is the shutdown test, in process:
// with a request held in admission and a watch open, the server is
// stopped. /readyz fails first; once the shutdown delay is over new
// requests get 429 with Retry-After (--shutdown-send-retry-after); the
// held request still completes, the watch ends without an error event,
// and Run returns nil.
func TestShutdownDrainsGracefully(t *testing.T) {
	s := startStoppableServer(t, func(c *Config) {
		c.ShutdownDelayDuration = 2 * time.Second
		c.Lifecycle.ShutdownSendRetryAfter = true
		c.Lifecycle.ShutdownWatchTerminationGracePeriod = 10 * time.Second
	})
	cs := kubernetes.NewForConfigOrDie(s.restCfg)
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var called atomic.Int64
	entered, release := make(chan struct{}, 1), make(chan struct{})
	url, ca := blockingWebhook(t, &called, entered, release)
	installValidatingWebhook(t, cs, "hold", url, ca)
	cms := cs.CoreV1().ConfigMaps("bench")
	eventually(t, "the webhook to be called", func() bool {
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "probe-"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return called.Load() > 0
	})

	w, err := cms.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	slow := make(chan error, 1)
	go func() {
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "slow"}}, metav1.CreateOptions{})
		slow <- err
	}()
	<-entered

	raw, err := rest.HTTPClientFor(s.restCfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) *http.Response {
		resp, err := raw.Get(s.restCfg.Host + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		return resp
	}
	if code := get("/readyz").StatusCode; code != http.StatusOK {
		t.Fatalf("/readyz before the stop: %d", code)
	}
	s.stop()
	eventually(t, "/readyz to fail", func() bool { return get("/readyz").StatusCode == http.StatusInternalServerError })
	var refused *http.Response
	eventually(t, "new requests to be refused with 429", func() bool {
		refused = get("/api/v1/namespaces/bench/configmaps")
		return refused.StatusCode == http.StatusTooManyRequests
	})
	if got := refused.Header.Get("Retry-After"); got != "5" {
		t.Errorf("Retry-After = %q, want 5", got)
	}
	if code := get("/livez").StatusCode; code != http.StatusOK {
		t.Errorf("/livez while draining: %d, want 200 (probes are exempt)", code)
	}

	// The watch was asked to end when new requests stopped being taken.
	for ev := range w.ResultChan() {
		if ev.Type == watch.Error {
			t.Errorf("the watch ended with an error event: %v", ev.Object)
		}
	}
	close(release)
	if err := <-slow; err != nil {
		t.Errorf("the request in flight at the stop: %v, want success", err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("Run: %v, want nil", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Run did not return")
	}
}

// installValidatingWebhook sends CREATEs of ConfigMaps in bench to url.
func installValidatingWebhook(t *testing.T, cs kubernetes.Interface, name, url string, ca []byte) {
	t.Helper()
	none := admissionregistrationv1.SideEffectClassNone
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         name + ".example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}},
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "bench"}},
		}},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(context.Background(), vwc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
