package e2e

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// configMapWebhook is a kubebuilder-style defaulter and validator for
// ConfigMaps: it sets data.defaulted-by and refuses a "forbidden" key.
type configMapWebhook struct{}

func (configMapWebhook) Default(_ context.Context, cm *corev1.ConfigMap) error {
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data["defaulted-by"] = "controller-runtime"
	return nil
}

func (configMapWebhook) check(cm *corev1.ConfigMap) (admission.Warnings, error) {
	if _, ok := cm.Data["forbidden"]; ok {
		return nil, fmt.Errorf("key %q is not allowed", "forbidden")
	}
	return nil, nil
}

func (w configMapWebhook) ValidateCreate(_ context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
	return w.check(cm)
}

func (w configMapWebhook) ValidateUpdate(_ context.Context, _, cm *corev1.ConfigMap) (admission.Warnings, error) {
	return w.check(cm)
}

func (configMapWebhook) ValidateDelete(context.Context, *corev1.ConfigMap) (admission.Warnings, error) {
	return nil, nil
}

// kubebuilderWebhookManifests is config/webhook/manifests.yaml as
// kubebuilder generates it for a core ConfigMap webhook, with the service
// reference replaced by the test server's URL and a namespaceSelector so
// the rest of the cluster is left alone.
func kubebuilderWebhookManifests(base, caBundle string) string {
	hook := func(prefix, path string) string {
		return fmt.Sprintf(`webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    url: %s%s
    caBundle: %s
  failurePolicy: Fail
  name: %sconfigmap.kb.io
  namespaceSelector:
    matchLabels: {kb-webhooks: "on"}
  rules:
  - apiGroups:
    - ""
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    resources:
    - configmaps
  sideEffects: None
`, base, path, caBundle, prefix)
	}
	return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
` + hook("m", "/mutate--v1-configmap") + `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
` + hook("v", "/validate--v1-configmap")
}

// TestWebhookControllerRuntime serves a defaulter and a validator built
// with controller-runtime's webhook builder, registers them the way
// kubebuilder's manifests do, and uses them through the manager's client:
// the default is set on create and the validator's refusal comes back
// with its message.
func TestWebhookControllerRuntime(t *testing.T) {
	k := framework.StartKapi(t, framework.WithStorageBackend("memory"))
	r := kubectlRunner{t, k}

	_, certPEM, keyPEM, caBundle := webhookCert(t)
	host, portStr, err := net.SplitHostPort(closedPort(t))
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(portStr)

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(k.RESTConfig(), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: host, Port: port, CertDir: writeCertDir(t, certPEM, keyPEM),
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	var hooks configMapWebhook
	if err := builder.WebhookManagedBy(mgr, &corev1.ConfigMap{}).
		WithDefaulter(hooks).WithValidator(hooks).Complete(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager stopped with %v", err)
		}
	}()
	eventually(t, "webhook server started", func(context.Context) (bool, error) {
		return mgr.GetWebhookServer().StartedChecker()(nil) == nil, nil
	})

	r.run("create", "namespace", "kb")
	r.run("label", "ns", "kb", "kb-webhooks=on")
	r.stdin(kubebuilderWebhookManifests(fmt.Sprintf("https://%s:%d", host, port), caBundle), "apply", "-f", "-")

	c := mgr.GetClient()
	n := 0
	eventually(t, "defaulting webhook in effect", func(ctx context.Context) (bool, error) {
		n++
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("probe-%d", n), Namespace: "kb"}}
		err := c.Create(ctx, cm)
		return err == nil && cm.Data["defaulted-by"] == "controller-runtime", err
	})
	eventually(t, "validating webhook in effect", func(ctx context.Context) (bool, error) {
		n++
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("probe-%d", n), Namespace: "kb"}, Data: map[string]string{"forbidden": "x"}}
		return c.Create(ctx, cm) != nil, nil
	})

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "kb"}, Data: map[string]string{"k": "v"}}
	if err := c.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	if got := cm.Data["defaulted-by"]; got != "controller-runtime" || cm.Data["k"] != "v" {
		t.Errorf("created data = %v, want the defaulter's key next to k=v", cm.Data)
	}

	bad := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: "kb"}, Data: map[string]string{"forbidden": "x"}}
	err = c.Create(t.Context(), bad)
	want := `admission webhook "vconfigmap.kb.io" denied the request: key "forbidden" is not allowed`
	if err == nil || err.Error() != want {
		t.Errorf("create refused by the validator: err = %v, want %q", err, want)
	}

	cm.Data["forbidden"] = "x"
	err = c.Update(t.Context(), cm)
	if err == nil || err.Error() != want {
		t.Errorf("update refused by the validator: err = %v, want %q", err, want)
	}
}
