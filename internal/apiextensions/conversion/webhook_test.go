package conversion

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/webhook"
)

const group = "stable.example.com"

// testHook is a conversion webhook for widgets: v1alpha1 spells
// spec.colour, v1 spec.color. tweak, when set, may spoil the answer.
type testHook struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []ConversionReview
	tweak    func(*ConversionReview)
}

func newTestHook(t testing.TB) *testHook {
	t.Helper()
	h := &testHook{}
	h.srv = httptest.NewUnstartedServer(h)
	h.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	h.srv.StartTLS()
	t.Cleanup(h.srv.Close)
	return h
}

func (h *testHook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var review ConversionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad review", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.requests = append(h.requests, review)
	tweak := h.tweak
	h.mu.Unlock()

	resp := &ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	for _, raw := range review.Request.Objects {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw.Raw); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		from, to := "colour", "color"
		if review.Request.DesiredAPIVersion == group+"/v1alpha1" {
			from, to = to, from
		}
		if v, ok, _ := unstructured.NestedString(u.Object, "spec", from); ok {
			unstructured.RemoveNestedField(u.Object, "spec", from)
			_ = unstructured.SetNestedField(u.Object, v, "spec", to)
		}
		u.SetAPIVersion(review.Request.DesiredAPIVersion)
		data, _ := u.MarshalJSON()
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: data})
	}
	out := &ConversionReview{TypeMeta: review.TypeMeta, Response: resp}
	if tweak != nil {
		tweak(out)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func (h *testHook) calls() []ConversionReview {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]ConversionReview(nil), h.requests...)
}

// crd is a widget CRD whose conversion webhook is h.
func (h *testHook) crd(reviewVersions ...string) *apiextv1.CustomResourceDefinition {
	if len(reviewVersions) == 0 {
		reviewVersions = []string{"v1", "v1beta1"}
	}
	url := h.srv.URL + "/convert"
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw})
	return &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget", ListKind: "WidgetList"},
			Scope: apiextv1.NamespaceScoped,
			Versions: []apiextv1.CustomResourceDefinitionVersion{
				{Name: "v1alpha1", Served: true}, {Name: "v1", Served: true, Storage: true},
			},
			Conversion: &apiextv1.CustomResourceConversion{
				Strategy: apiextv1.WebhookConverter,
				Webhook: &apiextv1.WebhookConversion{
					ClientConfig:             &apiextv1.WebhookClientConfig{URL: &url, CABundle: ca},
					ConversionReviewVersions: reviewVersions,
				},
			},
		},
	}
}

func (h *testHook) converter(t testing.TB, reviewVersions ...string) *WebhookConverter {
	t.Helper()
	c, err := NewWebhookConverter(h.crd(reviewVersions...), webhook.NewClientManager(nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// widget is a widget at version with the given colour field.
func widget(version, name, field, colour string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/" + version,
		"kind":       "Widget",
		"metadata": map[string]any{
			"name": name, "namespace": "default", "uid": "uid-" + name,
			"resourceVersion": "7", "generation": int64(2),
			"labels":      map[string]any{"app": "shop"},
			"annotations": map[string]any{"note": "x"},
		},
		"spec": map[string]any{field: colour, "size": int64(3)},
	}}
}

func httpError(code int, msg string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, msg, code) })
}
