package e2e

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// twoVersionCRD serves Widgets in v1alpha1 and v1 (the storage version)
// with the same schema; conversion is rewritten in by the tests.
const twoVersionCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              color: {type: string}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              color: {type: string}
`

// TestCRDVersionsNone reads objects created in one version in the other,
// with conversion strategy None: only apiVersion changes.
func TestCRDVersionsNone(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	ctx := t.Context()
	applyCRD(t, k, twoVersionCRD, "widgets.example.com")
	dc := dynamicFor(t, k, nil)
	alpha := dc.Resource(gvr("example.com", "v1alpha1", "widgets")).Namespace("default")
	v1 := dc.Resource(gvr("example.com", "v1", "widgets")).Namespace("default")

	spec := map[string]any{"size": int64(2), "color": "red"}
	if _, err := alpha.Create(ctx, newCR("example.com/v1alpha1", "Widget", "from-alpha", spec), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := v1.Create(ctx, newCR("example.com/v1", "Widget", "from-v1", spec), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, apiVersion string
		client           interface {
			Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
		}
	}{
		{"from-alpha", "example.com/v1", v1},
		{"from-v1", "example.com/v1alpha1", alpha},
	} {
		got, err := tc.client.Get(ctx, tc.name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get %s in %s: %v", tc.name, tc.apiVersion, err)
		}
		gotSpec, _, _ := unstructured.NestedMap(got.Object, "spec")
		if got.GetAPIVersion() != tc.apiVersion || fmt.Sprint(gotSpec) != fmt.Sprint(spec) {
			t.Errorf("get %s: apiVersion %s spec %v, want %s spec %v", tc.name, got.GetAPIVersion(), gotSpec, tc.apiVersion, spec)
		}
	}
	for _, tc := range []struct {
		apiVersion string
		list       func(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error)
	}{
		{"example.com/v1alpha1", alpha.List},
		{"example.com/v1", v1.List},
	} {
		list, err := tc.list(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, item := range list.Items {
			got = append(got, item.GetName()+" "+item.GetAPIVersion())
		}
		want := []string{"from-alpha " + tc.apiVersion, "from-v1 " + tc.apiVersion}
		if !slices.Equal(got, want) || list.GetAPIVersion() != tc.apiVersion {
			t.Errorf("list in %s: %s %v, want %v", tc.apiVersion, list.GetAPIVersion(), got, want)
		}
	}

	r := kubectlRunner{t, k}
	got := r.jsonpath(`{range .items[*]}{.metadata.name}={.apiVersion} {end}`, "get", "widgets.v1alpha1.example.com")
	if strings.TrimSpace(got) != "from-alpha=example.com/v1alpha1 from-v1=example.com/v1alpha1" {
		t.Errorf("kubectl get widgets.v1alpha1.example.com: %q", got)
	}
	mustHave(t, r.jsonpath("{.apiVersion} {.spec.size}", "get", "widgets.v1.example.com", "from-alpha"), "example.com/v1 2")
}

// conversionReview is the part of apiextensions.k8s.io/v1 ConversionReview
// the test webhook reads and writes.
type conversionReview struct {
	APIVersion string              `json:"apiVersion"`
	Kind       string              `json:"kind"`
	Request    *conversionRequest  `json:"request,omitempty"`
	Response   *conversionResponse `json:"response,omitempty"`
}

type conversionRequest struct {
	UID               string           `json:"uid"`
	DesiredAPIVersion string           `json:"desiredAPIVersion"`
	Objects           []map[string]any `json:"objects"`
}

type conversionResponse struct {
	UID              string           `json:"uid"`
	ConvertedObjects []map[string]any `json:"convertedObjects"`
	Result           metav1.Status    `json:"result"`
}

// colourWebhook converts Widgets between v1alpha1 (spec.colour) and v1
// (spec.color) and records the desiredAPIVersion of every request.
type colourWebhook struct {
	mu      sync.Mutex
	desired []string
}

func (h *colourWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var review conversionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "bad ConversionReview", http.StatusBadRequest)
		return
	}
	req := review.Request
	h.mu.Lock()
	h.desired = append(h.desired, req.DesiredAPIVersion)
	h.mu.Unlock()
	from, to := "color", "colour"
	if req.DesiredAPIVersion == "example.com/v1" {
		from, to = "colour", "color"
	}
	converted := make([]map[string]any, 0, len(req.Objects))
	for _, obj := range req.Objects {
		if spec, ok := obj["spec"].(map[string]any); ok {
			if v, ok := spec[from]; ok {
				spec[to] = v
				delete(spec, from)
			}
		}
		obj["apiVersion"] = req.DesiredAPIVersion
		converted = append(converted, obj)
	}
	writeJSON(w, conversionReview{
		APIVersion: "apiextensions.k8s.io/v1",
		Kind:       "ConversionReview",
		Response: &conversionResponse{
			UID:              req.UID,
			ConvertedObjects: converted,
			Result:           metav1.Status{Status: metav1.StatusSuccess},
		},
	})
}

func (h *colourWebhook) desiredVersions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.desired)
}

// startConversionWebhook serves h over TLS on 127.0.0.1 with a certificate
// from a CA made for the test, and returns the server and the CA's PEM.
func startConversionWebhook(t *testing.T, h http.Handler) (*httptest.Server, []byte) {
	t.Helper()
	ca := newTestCA(t, "conversion-webhook")
	certPEM, keyPEM := ca.issue(t, "127.0.0.1", nil, "127.0.0.1")
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, ca.certPEM
}

// webhookCRD is the Widget CRD whose versions name the colour differently
// and convert through the webhook at url.
func webhookCRD(url string, caPEM []byte) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        url: %s/convert
        caBundle: %s
  versions:
  - name: v1alpha1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              colour: {type: string}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
`, url, base64.StdEncoding.EncodeToString(caPEM))
}

// TestCRDConversionWebhook converts Widgets with a webhook the test
// serves, and checks the error clients get when the webhook is down.
func TestCRDConversionWebhook(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	ctx := t.Context()
	hook := &colourWebhook{}
	srv, caPEM := startConversionWebhook(t, hook)
	applyCRD(t, k, webhookCRD(srv.URL, caPEM), "widgets.example.com")
	dc := dynamicFor(t, k, nil)
	alpha := dc.Resource(gvr("example.com", "v1alpha1", "widgets")).Namespace("default")
	v1 := dc.Resource(gvr("example.com", "v1", "widgets")).Namespace("default")

	if _, err := alpha.Create(ctx, newCR("example.com/v1alpha1", "Widget", "w-alpha", map[string]any{"colour": "red"}), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create in v1alpha1: %v", err)
	}
	if _, err := v1.Create(ctx, newCR("example.com/v1", "Widget", "w-v1", map[string]any{"color": "blue"}), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create in v1: %v", err)
	}
	specOf := func(u *unstructured.Unstructured) string {
		spec, _, _ := unstructured.NestedMap(u.Object, "spec")
		return u.GetAPIVersion() + " " + fmt.Sprint(spec)
	}
	for _, tc := range []struct {
		name string
		get  func(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
		want string
	}{
		{"w-alpha", v1.Get, "example.com/v1 map[color:red]"},
		{"w-v1", alpha.Get, "example.com/v1alpha1 map[colour:blue]"},
		{"w-alpha", alpha.Get, "example.com/v1alpha1 map[colour:red]"},
		{"w-v1", v1.Get, "example.com/v1 map[color:blue]"},
	} {
		got, err := tc.get(ctx, tc.name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("get %s: %v", tc.name, err)
			continue
		}
		if specOf(got) != tc.want {
			t.Errorf("get %s = %s, want %s", tc.name, specOf(got), tc.want)
		}
	}
	list, err := alpha.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list in v1alpha1: %v", err)
	}
	var items []string
	for i := range list.Items {
		items = append(items, list.Items[i].GetName()+" "+specOf(&list.Items[i]))
	}
	if want := []string{"w-alpha example.com/v1alpha1 map[colour:red]", "w-v1 example.com/v1alpha1 map[colour:blue]"}; !slices.Equal(items, want) {
		t.Errorf("list in v1alpha1:\n got  %q\n want %q", items, want)
	}
	desired := hook.desiredVersions()
	if !slices.Contains(desired, "example.com/v1") || !slices.Contains(desired, "example.com/v1alpha1") || slices.Contains(desired, "") {
		t.Errorf("webhook saw desiredAPIVersions %q, want both example.com/v1 and example.com/v1alpha1", desired)
	}

	// The webhook goes away: the storage version still reads, the other
	// version fails with the conversion error.
	srv.Close()
	if _, err := v1.Get(ctx, "w-v1", metav1.GetOptions{}); err != nil {
		t.Errorf("get in the storage version without the webhook: %v", err)
	}
	_, err = alpha.Get(ctx, "w-v1", metav1.GetOptions{})
	if statusCode(err) != http.StatusInternalServerError || !strings.Contains(fmt.Sprint(err), "conversion webhook for example.com/v1, Kind=Widget failed") {
		t.Errorf("get in v1alpha1 with the webhook down: code %d, %v; want 500 naming the conversion webhook", statusCode(err), err)
	}
	r := kubectlRunner{t, k}
	mustHave(t, r.fails("", "get", "widgets.v1alpha1.example.com", "w-v1"), "conversion webhook for example.com/v1, Kind=Widget failed")
}

// TestCRDDeprecatedVersion checks the Warning a request to a deprecated
// version carries: upstream's default text, or the CRD's own.
func TestCRDDeprecatedVersion(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	crd := strings.Replace(twoVersionCRD, "  - name: v1alpha1\n    served: true\n", "  - name: v1alpha1\n    served: true\n    deprecated: true\n", 1)
	crd = strings.Replace(crd, "  versions:\n", `  versions:
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    deprecationWarning: "example.com/v1beta1 widgets go away in 2027; move to v1"
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`, 1)
	applyCRD(t, k, crd, "widgets.example.com")

	warnings := &warningRecorder{}
	dc := dynamicFor(t, k, warnings.install)
	alpha := dc.Resource(gvr("example.com", "v1alpha1", "widgets")).Namespace("default")
	if _, err := alpha.Create(t.Context(), newCR("example.com/v1alpha1", "Widget", "old", map[string]any{"size": int64(1)}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const alphaWarning = "example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget"
	if got := warnings.take(); !slices.Equal(got, []string{alphaWarning}) {
		t.Errorf("warnings of a create in v1alpha1 = %q, want %q", got, alphaWarning)
	}
	if _, err := dc.Resource(gvr("example.com", "v1", "widgets")).Namespace("default").Get(t.Context(), "old", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := warnings.take(); len(got) != 0 {
		t.Errorf("a request in v1 warned %q", got)
	}

	r := kubectlRunner{t, k}
	_, stderr, err := k.KubectlOutput(t, "", "get", "widgets.v1alpha1.example.com", "old")
	if err != nil {
		t.Fatal(err)
	}
	mustHave(t, stderr, "Warning: "+alphaWarning)
	_, stderr, err = k.KubectlOutput(t, "", "get", "widgets.v1beta1.example.com")
	if err != nil {
		t.Fatal(err)
	}
	mustHave(t, stderr, "Warning: example.com/v1beta1 widgets go away in 2027; move to v1")
	if strings.Contains(stderr, "Widget is deprecated") {
		t.Errorf("a custom deprecationWarning replaces the default one, got:\n%s", stderr)
	}
	mustHave(t, r.run("get", "widgets.v1.example.com", "old"), "old")
}
