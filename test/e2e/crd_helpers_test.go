package e2e

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kapi-dev/kapi/test/e2e/framework"
)

// crdWait bounds how long a test waits for something the server does in
// the background (a CRD becoming Established, a controller reconciling).
// It is a deadline for a hung server, not a performance threshold.
const crdWait = 30 * time.Second

// applyCRD applies a CRD manifest with kubectl and waits for it to be
// Established, the way an operator's install script does.
func applyCRD(t *testing.T, k *framework.Kapi, manifest, name string) {
	t.Helper()
	r := kubectlRunner{t, k}
	r.stdin(manifest, "apply", "-f", "-")
	r.run("wait", "--for", "condition=established", "--timeout=30s", "crd/"+name)
}

// dynamicFor returns a dynamic client for the admin user; cfg edits the
// configuration first when not nil (to record warnings, say).
func dynamicFor(t *testing.T, k *framework.Kapi, edit func(*rest.Config)) dynamic.Interface {
	t.Helper()
	cfg := k.RESTConfig()
	if edit != nil {
		edit(cfg)
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

// newCR builds a custom resource of apiVersion and kind named name with
// the given spec.
func newCR(apiVersion, kind, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion,
		"kind":       kind,
		"metadata":   map[string]any{"name": name},
	}}
	if spec != nil {
		u.Object["spec"] = spec
	}
	return u
}

// warningRecorder collects the Warning headers a client receives.
type warningRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

// take returns the warnings received since the last call.
func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	got := w.msgs
	w.msgs = nil
	return got
}

func (w *warningRecorder) install(cfg *rest.Config) { cfg.WarningHandler = w }

// statusCode is the HTTP code of an API error, 0 for nil and -1 for an
// error that carries no Status.
func statusCode(err error) int {
	if err == nil {
		return 0
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return int(st.Status().Code)
	}
	return -1
}

// eventually polls cond until it returns true or crdWait passes; the last
// error cond returned is reported on timeout.
func eventually(t *testing.T, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, crdWait, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if err != nil {
			last = err
			return false, nil
		}
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: never happened (last error: %v)", what, last)
	}
}

var _ rest.WarningHandler = (*warningRecorder)(nil)

// gvr is a shorthand for a custom resource's GroupVersionResource.
func gvr(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}
