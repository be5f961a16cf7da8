package controlplane

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// admissionWebhookServer mutates (adds a label) on /mutate and denies
// ConfigMaps named "forbidden" on /validate.
func admissionWebhookServer(t *testing.T) (*httptest.Server, []byte) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		switch r.URL.Path {
		case "/mutate":
			pt := admissionv1.PatchTypeJSONPatch
			resp.PatchType = &pt
			resp.Patch = []byte(`[{"op":"add","path":"/metadata/labels","value":{"mutated-by":"webhook"}}]`)
			resp.Warnings = []string{"mutated by the test webhook"}
		case "/validate":
			if review.Request.Name == "forbidden" {
				resp.Allowed = false
				resp.Result = &metav1.Status{Message: "the name forbidden is reserved (" + string(review.Request.Operation) + " " + review.Request.Kind.Kind + ")"}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
	}))
	t.Cleanup(srv.Close)
	return srv, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// TestAdmissionWebhooksThroughServer: a mutating webhook's change is
// stored, a validating webhook's denial reaches the client with
// upstream's text, and an unreachable webhook fails open under Ignore
// and closed under Fail.
func TestAdmissionWebhooksThroughServer(t *testing.T) {
	s := startServer(t, "memory")
	warnings := &warningCollector{}
	cfg := rest.CopyConfig(s.restCfg)
	cfg.WarningHandler = warnings
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	srv, ca := admissionWebhookServer(t)
	url := func(p string) *string { u := srv.URL + p; return &u }
	none := admissionregistrationv1.SideEffectClassNone
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
	}}
	onlyBench := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "bench"}}
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "mutate"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "mutate.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: url("/mutate"), CABundle: ca},
			Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: onlyBench,
		}},
	}
	if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, mwc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "validate"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "validate.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: url("/validate"), CABundle: ca},
			Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: onlyBench,
		}},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, vwc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The configurations reach the plugins through the shared informers.
	var cm *corev1.ConfigMap
	eventually(t, "the mutating webhook to apply", func() bool {
		cm, err = cs.CoreV1().ConfigMaps("bench").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "m-"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cm.Labels["mutated-by"] == "webhook"
	})
	if !warnings.has("mutated by the test webhook") {
		t.Errorf("the webhook's warning did not reach the client: %v", warnings.all())
	}
	stored, err := cs.CoreV1().ConfigMaps("bench").Get(ctx, cm.Name, metav1.GetOptions{})
	if err != nil || stored.Labels["mutated-by"] != "webhook" {
		t.Fatalf("stored object %v, %v: the mutation was not stored", stored, err)
	}
	eventually(t, "the validating webhook to deny", func() bool {
		_, err = cs.CoreV1().ConfigMaps("bench").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "forbidden"}}, metav1.CreateOptions{})
		if err == nil {
			_ = cs.CoreV1().ConfigMaps("bench").Delete(ctx, "forbidden", metav1.DeleteOptions{})
		}
		return err != nil
	})
	if want := `admission webhook "validate.example.com" denied the request: the name forbidden is reserved`; !strings.Contains(err.Error(), want) {
		t.Errorf("denial = %v, want %q", err, want)
	}
	// Other namespaces are not selected.
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "forbidden"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("namespaceSelector ignored: %v", err)
	}

	// CONNECT requests (pods/exec) go through admission with their options.
	execRules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Connect},
		Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/exec"}},
	}}
	execCfg := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "exec"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "validate.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: url("/validate"), CABundle: ca},
			Rules: execRules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, execCfg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the exec webhook to deny", func() bool {
		err = cs.CoreV1().RESTClient().Post().Namespace("bench").Resource("pods").Name("forbidden").SubResource("exec").Param("command", "ls").Do(ctx).Error()
		return err != nil && strings.Contains(err.Error(), "denied the request")
	})
	if want := `admission webhook "validate.example.com" denied the request: the name forbidden is reserved (CONNECT PodExecOptions)`; !strings.Contains(err.Error(), want) {
		t.Errorf("exec: %v, want %q", err, want)
	}

	// An unreachable webhook: Fail refuses requests; switched to Ignore,
	// the same webhook lets them through.
	dead := "https://127.0.0.1:1/dead"
	fail := admissionregistrationv1.Fail
	c := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "dead"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "dead.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &dead},
			Rules: rules, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, FailurePolicy: &fail,
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"dead": "true"}},
		}},
	}
	if c, err = cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadCM := func() error {
		_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "d-", Labels: map[string]string{"dead": "true"}}}, metav1.CreateOptions{})
		return err
	}
	eventually(t, "the failing webhook to refuse", func() bool { err = deadCM(); return err != nil })
	if want := `Internal error occurred: failed calling webhook "dead.example.com": failed to call webhook: Post "https://127.0.0.1:1/dead?timeout=10s"`; !strings.Contains(err.Error(), want) {
		t.Errorf("Fail: create = %v, want %q", err, want)
	}
	ignore := admissionregistrationv1.Ignore
	c.Webhooks[0].FailurePolicy = &ignore
	if _, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, c, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the ignored webhook to let the request through", func() bool { return deadCM() == nil })
}

// warningCollector keeps the Warning headers a client received.
type warningCollector struct {
	mu   sync.Mutex
	seen []string
}

func (w *warningCollector) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warningCollector) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen)
}

func (w *warningCollector) has(text string) bool { return slices.Contains(w.all(), text) }

// eventually polls cond until it holds or ten seconds pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
