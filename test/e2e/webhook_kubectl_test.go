package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// admissionHandler answers AdmissionReview v1 requests with decide's
// response (UID filled in).
func admissionHandler(t *testing.T, decide func(obj map[string]any) *admissionv1.AdmissionResponse) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			t.Errorf("webhook got a bad AdmissionReview: %v", err)
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(review.Request.Object.Raw, &obj); err != nil {
			t.Errorf("webhook object: %v", err)
		}
		resp := decide(obj)
		resp.UID = review.Request.UID
		review.Request = nil
		review.Response = resp
		writeJSON(w, review)
	})
}

// labelsOf returns the object's metadata.labels.
func labelsOf(obj map[string]any) map[string]any {
	meta, _ := obj["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	return labels
}

// startAdmissionServer serves the mutating and denying webhooks over TLS
// and returns its URL and the caBundle.
func startAdmissionServer(t *testing.T) (string, string) {
	pair, _, _, caBundle := webhookCert(t)
	mux := http.NewServeMux()
	jsonPatch := admissionv1.PatchTypeJSONPatch
	mux.Handle("/mutate", admissionHandler(t, func(obj map[string]any) *admissionv1.AdmissionResponse {
		op := map[string]any{"op": "add", "path": "/metadata/labels/mutated-by", "value": "webhook"}
		if labelsOf(obj) == nil {
			op = map[string]any{"op": "add", "path": "/metadata/labels", "value": map[string]any{"mutated-by": "webhook"}}
		}
		patch, _ := json.Marshal([]any{op})
		return &admissionv1.AdmissionResponse{Allowed: true, Patch: patch, PatchType: &jsonPatch}
	}))
	mux.Handle("/deny", admissionHandler(t, func(obj map[string]any) *admissionv1.AdmissionResponse {
		if labelsOf(obj)["forbidden"] == nil {
			return &admissionv1.AdmissionResponse{Allowed: true}
		}
		return &admissionv1.AdmissionResponse{Result: &metav1.Status{Code: http.StatusForbidden, Message: "configmaps labelled forbidden are not allowed here"}}
	}))
	srv := httptest.NewUnstartedServer(mux)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL, caBundle
}

// webhookConfigs registers the test's webhooks for ConfigMaps in
// namespaces labelled webhooks=on, plus one at an address nothing
// listens on for ConfigMaps labelled probe=dead.
func webhookConfigs(url, caBundle, dead string) string {
	rules := `
  rules:
  - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}
  namespaceSelector: {matchLabels: {webhooks: "on"}}
  sideEffects: None
  admissionReviewVersions: [v1]
  timeoutSeconds: 5`
	return fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: label}
webhooks:
- name: label.example.com
  clientConfig: {url: "%[1]s/mutate", caBundle: %[2]s}
  failurePolicy: Fail%[3]s
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: deny}
webhooks:
- name: deny.example.com
  clientConfig: {url: "%[1]s/deny", caBundle: %[2]s}
  failurePolicy: Fail%[3]s
- name: dead.example.com
  clientConfig: {url: "https://%[4]s/validate", caBundle: %[2]s}
  failurePolicy: Ignore
  objectSelector: {matchLabels: {probe: dead}}%[3]s
`, url, caBundle, rules, dead)
}

// TestWebhookKubectl: admission webhooks as a user sees them through
// kubectl. A JSONPatch from a mutating webhook shows in the stored
// object, a denial is printed with upstream's prefix, and an unreachable
// webhook lets requests through under failurePolicy Ignore and refuses
// them with upstream's text under Fail.
func TestWebhookKubectl(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}
	url, caBundle := startAdmissionServer(t)
	dead := closedPort(t)

	r.run("create", "namespace", "hooked")
	r.run("label", "ns", "hooked", "webhooks=on")
	r.stdin(webhookConfigs(url, caBundle, dead), "apply", "-f", "-")

	// Configurations are picked up from an informer: wait until the
	// mutating one acts.
	cs := k.Clientset()
	n := 0
	eventually(t, "mutating webhook in effect", func(ctx context.Context) (bool, error) {
		n++
		cm, err := cs.CoreV1().ConfigMaps("hooked").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("probe-%d", n)}}, metav1.CreateOptions{})
		return err == nil && cm.Labels["mutated-by"] == "webhook", err
	})
	eventually(t, "validating webhook in effect", func(ctx context.Context) (bool, error) {
		n++
		_, err := cs.CoreV1().ConfigMaps("hooked").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("probe-%d", n), Labels: map[string]string{"forbidden": "yes"}}}, metav1.CreateOptions{})
		return err != nil, nil
	})

	r.run("-n", "hooked", "create", "configmap", "plain")
	if got := r.jsonpath(`{.metadata.labels.mutated-by}`, "-n", "hooked", "get", "cm", "plain"); got != "webhook" {
		t.Errorf("label set by the mutating webhook = %q, want webhook", got)
	}

	out := r.fails(`apiVersion: v1
kind: ConfigMap
metadata: {name: bad, namespace: hooked, labels: {forbidden: "yes"}}
`, "create", "-f", "-")
	// The webhook's status has a code but no reason, so kubectl prints no
	// "(Reason)", as with kube-apiserver.
	mustHave(t, out, `Error from server: error when creating "STDIN": admission webhook "deny.example.com" denied the request: configmaps labelled forbidden are not allowed here`)

	// failurePolicy Ignore: the dead webhook does not stop the request.
	r.stdin(`apiVersion: v1
kind: ConfigMap
metadata: {name: ignored, namespace: hooked, labels: {probe: dead}}
`, "create", "-f", "-")

	// failurePolicy Fail: the same dead webhook refuses it.
	r.run("patch", "validatingwebhookconfiguration", "deny", "--type=json",
		`-p=[{"op":"replace","path":"/webhooks/1/failurePolicy","value":"Fail"}]`)
	var refused string
	eventually(t, "failurePolicy Fail in effect", func(ctx context.Context) (bool, error) {
		n++
		_, err := cs.CoreV1().ConfigMaps("hooked").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("probe-%d", n), Labels: map[string]string{"probe": "dead"}}}, metav1.CreateOptions{})
		return err != nil, nil
	})
	refused = r.fails(`apiVersion: v1
kind: ConfigMap
metadata: {name: failed, namespace: hooked, labels: {probe: dead}}
`, "create", "-f", "-")
	t.Logf("failurePolicy Fail: %s", refused)
	mustHave(t, refused,
		`Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed calling webhook "dead.example.com": failed to call webhook: Post "https://`+dead+`/validate?timeout=5s": `,
		`connect: connection refused`)
	if strings.Contains(r.run("-n", "hooked", "get", "cm", "-o", "name"), "configmap/failed") {
		t.Error("a ConfigMap refused by a failing webhook was stored")
	}
}
