package controlplane

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// stripTolerations is a webhook that removes a pod's tolerations and
// records the reviews it was sent.
type stripTolerations struct {
	mu      sync.Mutex
	reviews []admissionv1.AdmissionReview
}

func (s *stripTolerations) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.reviews = append(s.reviews, review)
	s.mu.Unlock()
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	var pod corev1.Pod
	if err := json.Unmarshal(review.Request.Object.Raw, &pod); err == nil && len(pod.Spec.Tolerations) > 0 {
		pt := admissionv1.PatchTypeJSONPatch
		resp.PatchType, resp.Patch = &pt, []byte(`[{"op":"remove","path":"/spec/tolerations"}]`)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: resp})
}

func (s *stripTolerations) reviewsOf(name string) []admissionv1.AdmissionReview {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []admissionv1.AdmissionReview
	for _, r := range s.reviews {
		if r.Request.Name == name {
			out = append(out, r)
		}
	}
	return out
}

// TestReinvocationThroughServer: a webhook (reinvocationPolicy Never)
// that strips a pod's tolerations changes the object, so upstream runs
// the built-in mutating plugins once more and DefaultTolerationSeconds
// puts its tolerations back; the webhook is not called again. The
// review carries the request's CreateOptions.
func TestReinvocationThroughServer(t *testing.T) {
	var warnings []string
	cs := startWithPodPlugins(t, &warnings)
	ctx := context.Background()
	hook := &stripTolerations{}
	srv := httptest.NewTLSServer(hook)
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "reinv"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts("reinv").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	none := admissionregistrationv1.SideEffectClassNone
	never := admissionregistrationv1.NeverReinvocationPolicy
	u := srv.URL + "/strip"
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "strip"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "strip.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: ca},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}},
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, ReinvocationPolicy: &never,
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "reinv"}},
		}},
	}
	if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, mwc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var pod *corev1.Pod
	var name string
	for i := 0; ; i++ {
		name = fmt.Sprintf("p-%d", i)
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
		var err error
		if pod, err = cs.CoreV1().Pods("reinv").Create(ctx, p, metav1.CreateOptions{FieldManager: "reinv-test"}); err != nil {
			t.Fatal(err)
		}
		if len(hook.reviewsOf(name)) > 0 {
			break // the configuration has reached the plugin
		}
		if i == 500 {
			t.Fatal("the webhook was never called")
		}
	}
	var keys []string
	for _, tol := range pod.Spec.Tolerations {
		keys = append(keys, tol.Key)
	}
	if got := strings.Join(keys, ","); got != "node.kubernetes.io/not-ready,node.kubernetes.io/unreachable" {
		t.Errorf("tolerations after reinvocation = %q, want DefaultTolerationSeconds' two", got)
	}
	reviews := hook.reviewsOf(name)
	if len(reviews) != 1 {
		t.Errorf("webhook called %d times, want 1 (Never)", len(reviews))
	}
	if opts := string(reviews[0].Request.Options.Raw); !strings.Contains(opts, `"kind":"CreateOptions"`) || !strings.Contains(opts, `"fieldManager":"reinv-test"`) {
		t.Errorf("request.options = %s", opts)
	}
}
