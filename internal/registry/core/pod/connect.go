package pod

import (
	"context"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/registry/generic"
	"github.com/kapi-dev/kapi/internal/registry/rest"
)

// The kubelet-backed subresources (log, exec, attach, portforward, proxy)
// stream from the node a pod runs on. kapi runs no kubelet, so each
// answers 503 Service Unavailable for an existing pod (404 for a missing
// one), with the verbs upstream serves them under; exec, attach,
// portforward and proxy are connect storage, as upstream.

// noKubelet is the error of every kubelet-backed request for pod name.
func noKubelet(name string) error {
	return apierrors.NewServiceUnavailable(fmt.Sprintf(
		"pods %q: no kubelet is running for this control plane (kapi stores pods but does not run them)", name))
}

// LogREST serves GET pods/{name}/log.
type LogREST struct {
	store *generic.Store
}

var _ rest.Getter = (*LogREST)(nil)

// New returns an empty pod: logs are a read of the pod.
func (r *LogREST) New() runtime.Object { return &corev1.Pod{} }

// Destroy does nothing: the pods storage owns the store.
func (r *LogREST) Destroy() {}

// Get answers 503 for an existing pod.
func (r *LogREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	return nil, checkPod(ctx, r.store, name)
}

// connectREST serves exec, attach, portforward and proxy: each method
// upstream accepts answers 503 for an existing pod, before any body is
// read.
type connectREST struct {
	store   *generic.Store
	options runtime.Object
	methods []string
}

var _ rest.Connecter = (*connectREST)(nil)

// streamMethods are the methods of exec, attach and portforward: GET for
// websockets, POST for SPDY.
var streamMethods = []string{http.MethodGet, http.MethodPost}

// proxyMethods are the methods pods/proxy accepts upstream.
var proxyMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

func newConnectREST(store *generic.Store, options runtime.Object, methods []string) *connectREST {
	return &connectREST{store: store, options: options, methods: methods}
}

// New returns the subresource's options kind (PodExecOptions, ...).
func (r *connectREST) New() runtime.Object { return r.options.DeepCopyObject() }

// Destroy does nothing: the pods storage owns the store.
func (r *connectREST) Destroy() {}

// ConnectMethods are the HTTP methods served.
func (r *connectREST) ConnectMethods() []string { return r.methods }

// Connect answers 404 for a missing pod and 503 for any other.
func (r *connectREST) Connect(ctx context.Context, name string, _ *http.Request) (http.Handler, error) {
	return nil, checkPod(ctx, r.store, name)
}

// checkPod returns the pod's NotFound, or noKubelet.
func checkPod(ctx context.Context, store *generic.Store, name string) error {
	if _, err := store.Get(ctx, name, &metav1.GetOptions{}); err != nil {
		return err
	}
	return noKubelet(name)
}
